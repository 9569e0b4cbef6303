/**
 * Writes packages/protocol/test-vectors/*.json from fixed inputs. Run only when the format changes on
 * purpose (`npx tsx packages/protocol/test/generate-vectors.ts`); the vector test then checks that
 * decoding the stored hex gives the stored values and encoding the values gives the hex, byte for byte.
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { deflateRawSync } from 'node:zlib'
import {
  CAPABILITY,
  chunkFrame,
  encodeAttachmentRef,
  encodeBody,
  encodeHealth,
  encodeEnvelope,
  FLAGS,
  KIND_NAMES,
  KINDS,
  packBatch,
  type Envelope,
  type Kind,
} from '../src/index.ts'

const dir = new URL('../test-vectors/', import.meta.url)
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex')
const text = (s: string): Uint8Array => new TextEncoder().encode(s)

const DOC = '0f8fad5b-d9cb-469f-a165-70867728950e'
const SENDER = '7c9e6679-7425-40de-944b-e07fc1f90ae7'

const payloads: Record<Kind, Uint8Array> = {
  update: Uint8Array.of(0x01, 0x01, 0xa4, 0xd6, 0x9c, 0x07, 0x00, 0x04, 0x01, 0x01, 0x74, 0x01, 0x68, 0x00),
  'sync-request': Uint8Array.of(0x01, 0xa4, 0xd6, 0x9c, 0x07, 0x05),
  'sync-response': Uint8Array.of(0x00, 0x00),
  snapshot: Uint8Array.of(0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a),
  awareness: text('{"cursor":12}'),
  health: text('ok'),
  chunk: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 4, 0xde, 0xad, 0xbe, 0xef, 0xe2, 0xc0),
  batch: Uint8Array.of(0x01, 0x02, 0xaa, 0xbb),
  ack: Uint8Array.of(),
  error: text('PROTO_TRUNCATED'),
  'chat-prompt': text('Summarise section 2.'),
  'chat-reply': text('Section 2 defines the envelope.'),
  'chat-control': text('stop'),
  'chat-status': text('thinking'),
  attachment: Uint8Array.of(0, 0, 0x01, 0x2c, ...Array.from({ length: 32 }, (_, i) => i)),
  delivery: text('{"signal":"unreachable","since":1764581000000,"unsent":3,"sent":[]}'),
}

function vector(name: string, envelope: Envelope): object {
  const frame = encodeEnvelope(envelope)
  return { name, envelope: { ...envelope, payload: hex(envelope.payload) }, hex: hex(frame), body: encodeBody(frame) }
}

const kinds = KIND_NAMES.map((kind, i) =>
  vector(`kind ${kind} (code 0x${KINDS[kind].code.toString(16).padStart(2, '0')})`, {
    kind,
    flags: [0, FLAGS.ackRequested, FLAGS.retransmit, FLAGS.ackRequested | FLAGS.retransmit][i % 4] ?? 0,
    docId: DOC,
    senderId: SENDER,
    messageId: (0x10 + i).toString(16).padStart(2, '0').repeat(16),
    seq: [0, 1, 127, 128, 300, 16384, 2 ** 32, Number.MAX_SAFE_INTEGER][i % 8] ?? 0,
    payload: payloads[kind],
  }),
)
// A sidecar-to-sidecar envelope whose payload is raw DEFLATE of a Yjs update (contract §3.4).
kinds.push(
  vector('update with the deflated flag (payload: raw DEFLATE of the kind update payload, 4 times)', {
    kind: 'update',
    flags: FLAGS.deflated,
    docId: DOC,
    senderId: SENDER,
    messageId: 'c0'.repeat(16),
    seq: 9,
    payload: new Uint8Array(
      deflateRawSync(Buffer.concat(Array.from({ length: 4 }, () => payloads.update)), { level: 6 }),
    ),
  }),
)
writeFileSync(
  new URL('envelopes.json', dir),
  `${JSON.stringify({ description: 'One envelope per kind: decode(hex) equals envelope (payload in hex), encode(envelope) equals hex, body is the e2e-col:v1: body of hex.', vectors: kinds }, null, 2)}\n`,
)

const original: Envelope = {
  kind: 'snapshot',
  flags: 0,
  docId: DOC,
  senderId: SENDER,
  messageId: 'a0'.repeat(16),
  seq: 42,
  payload: Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff),
}
const originalFrame = encodeEnvelope(original)
const maxBodyBytes = 200
const chunks = chunkFrame(originalFrame, { maxBodyBytes })
writeFileSync(
  new URL('chunked.json', dir),
  `${JSON.stringify(
    {
      description: 'One snapshot chunked at maxBodyBytes; chunks in index order, bodies are their e2e-col:v1: bodies.',
      maxBodyBytes,
      envelope: { ...original, payload: hex(original.payload) },
      hex: hex(originalFrame),
      chunks: chunks.map(hex),
      bodies: chunks.map((c) => encodeBody(c)),
    },
    null,
    2,
  )}\n`,
)

const entries: Envelope[] = [
  {
    kind: 'update',
    flags: 0,
    docId: DOC,
    senderId: SENDER,
    messageId: 'b1'.repeat(16),
    seq: 5,
    payload: payloads.update,
  },
  {
    kind: 'awareness',
    flags: 0,
    docId: DOC,
    senderId: SENDER,
    messageId: 'b2'.repeat(16),
    seq: 6,
    payload: payloads.awareness,
  },
  {
    kind: 'update',
    flags: FLAGS.retransmit,
    docId: DOC,
    senderId: SENDER,
    messageId: 'b3'.repeat(16),
    seq: 4,
    payload: Uint8Array.of(0),
  },
]
const batchHeader = { docId: DOC, senderId: SENDER, messageId: 'c0'.repeat(16), seq: 7 }
const batch = packBatch(
  batchHeader,
  entries.map((e) => encodeEnvelope(e)),
  { maxBodyBytes: 2000 },
)
writeFileSync(
  new URL('batch.json', dir),
  `${JSON.stringify(
    {
      description: 'Three envelopes packed into one batch; unpackBatch(decode(hex)) equals entries.',
      header: batchHeader,
      entries: entries.map((e) => ({ ...e, payload: hex(e.payload) })),
      hex: hex(batch.frame),
      body: encodeBody(batch.frame),
    },
    null,
    2,
  )}\n`,
)

// Health payloads (contract §3.12): record lists, from a bare probe to every known record plus an unknown one.
const healthCases: { name: string; value: Parameters<typeof encodeHealth>[0] }[] = [
  { name: 'format 1, no records', value: {} },
  {
    name: 'capabilities: envelope v1, deflate and attachments',
    value: { capabilities: { envelopeVersion: 1, features: CAPABILITY.deflate | CAPABILITY.attachments } },
  },
  {
    name: 'capabilities (deflate only) and hello',
    value: { capabilities: { envelopeVersion: 1, features: CAPABILITY.deflate }, hello: true },
  },
  { name: 'authors: two client ids', value: { authors: [1, 0xffff_ffff] } },
  {
    name: 'every known record and an unknown tag 0x40',
    value: {
      capabilities: { envelopeVersion: 1, features: 0x83 },
      hello: true,
      stateVector: payloads['sync-request'],
      authors: [42],
      unknown: new Map([[0x40, text('later')]]),
    },
  },
]
const health = healthCases.map(({ name, value }) => ({
  name,
  value: {
    ...value,
    ...(value.stateVector === undefined ? {} : { stateVector: hex(value.stateVector) }),
    ...(value.unknown === undefined
      ? {}
      : { unknown: Object.fromEntries([...value.unknown].map(([k, v]) => [k, hex(v)])) }),
  },
  hex: hex(encodeHealth(value)),
}))
const invalidHealth = [
  { name: 'format 2', hex: '02', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'tags out of order', hex: '0103000200', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'tag repeated', hex: '0102000200', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'record overruns the payload', hex: '01010501', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'capabilities with a trailing byte', hex: '0101030103ff', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'hello not empty', hex: '01020100', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'authors naming no client id', hex: '01040100', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'authors with a client id over 2^53 − 1', hex: '01040901808080808080808010', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'authors count over 64', hex: '0104014100', code: 'PROTO_HEALTH_MALFORMED' },
  { name: 'overlong tag varint', hex: '01810000', code: 'PROTO_NON_CANONICAL_VARINT' },
]
writeFileSync(
  new URL('health.json', dir),
  `${JSON.stringify({ description: 'Health payloads: decodeHealth(hex) equals value (bytes in hex), encodeHealth(value) equals hex; invalid ones with their code.', vectors: health, invalid: invalidHealth }, null, 2)}\n`,
)

// An attachment reference (contract §3.13): the carried frame, its SHA-256, the reference and its body.
const carried = encodeEnvelope({
  ...original,
  messageId: 'd0'.repeat(16),
  flags: FLAGS.deflated,
  payload: new Uint8Array(deflateRawSync(original.payload, { level: 6 })),
})
const digest = new Uint8Array(createHash('sha256').update(carried).digest())
const ref = encodeAttachmentRef(carried, digest)
writeFileSync(
  new URL('attachment.json', dir),
  `${JSON.stringify(
    {
      description:
        'A deflated snapshot carried as an attachment: sha256 is SHA-256 of frame, ref is encodeAttachmentRef(frame, sha256), body the text body sent with the attachment.',
      frame: hex(carried),
      sha256: hex(digest),
      ref: hex(ref),
      body: encodeBody(ref),
      fileName: `e2e-col-${'d0'.repeat(16)}.bin`,
    },
    null,
    2,
  )}\n`,
)

const good = hex(encodeEnvelope(entries[0] as Envelope))
const head = good.slice(0, 106)
const invalid = [
  { name: 'wrong magic', hex: `e2c1${good.slice(4)}`, code: 'PROTO_BAD_MAGIC' },
  { name: 'version 2', hex: `e2c002${good.slice(6)}`, code: 'PROTO_UNSUPPORTED_VERSION' },
  { name: 'kind 0x7f', hex: `e2c0017f${good.slice(8)}`, code: 'PROTO_UNKNOWN_KIND' },
  { name: 'flag bit 0x08', hex: `e2c0010108${good.slice(10)}`, code: 'PROTO_UNKNOWN_FLAGS' },
  { name: 'last byte missing', hex: good.slice(0, -2), code: 'PROTO_TRUNCATED' },
  { name: 'one trailing byte', hex: `${good}00`, code: 'PROTO_TRAILING_BYTES' },
  { name: 'overlong seq 85 00', hex: `${head}85000000`, code: 'PROTO_NON_CANONICAL_VARINT' },
  { name: 'seq 2^53', hex: `${head}808080808080801000`, code: 'PROTO_SEQ_OVERFLOW' },
  { name: 'payload length 2^32', hex: `${head}008080808010`, code: 'PROTO_LENGTH_OVERFLOW' },
  {
    name: 'payload length 16 MiB + 128 KiB, over the default 16 MiB limit',
    hex: `${head}0080808808`,
    code: 'PROTO_PAYLOAD_TOO_LARGE',
  },
]
const invalidBodies = [
  { name: 'ordinary chat text', body: 'see you at 5', code: 'PROTO_BODY_FOREIGN' },
  { name: 'version 2 prefix', body: 'e2e-col:v2:AAAA', code: 'PROTO_BODY_UNSUPPORTED_VERSION' },
  { name: 'prefix only', body: 'e2e-col:v1:', code: 'PROTO_BODY_EMPTY' },
  { name: 'line break', body: 'e2e-col:v1:AAAA\nAAAA', code: 'PROTO_BODY_WHITESPACE' },
  { name: 'padding missing', body: 'e2e-col:v1:AAA', code: 'PROTO_BODY_NOT_CANONICAL' },
  { name: 'non-zero pad bits', body: 'e2e-col:v1:AB==', code: 'PROTO_BODY_NOT_CANONICAL' },
  { name: 'base64url alphabet', body: 'e2e-col:v1:-_-_', code: 'PROTO_BODY_NOT_CANONICAL' },
]
writeFileSync(
  new URL('invalid.json', dir),
  `${JSON.stringify({ description: 'Inputs every reader must reject, with the ProtocolError code it must report.', envelopes: invalid, bodies: invalidBodies }, null, 2)}\n`,
)
console.log('wrote envelopes.json, chunked.json, batch.json, invalid.json, health.json, attachment.json')
