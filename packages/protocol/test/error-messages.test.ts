/**
 * A rejection says what is wrong: beyond its stable code, each ProtocolError's message names the
 * input, the field and the numbers involved, so a log line is enough to tell one bad input from
 * another. One row per rejection the package can give (docs/protocol.md §3.9).
 */
import { describe, expect, it } from 'vitest'
import {
  chunkFrame,
  createDedupWindow,
  createReassembler,
  decodeBody,
  decodeBodyInto,
  decodeChunk,
  decodeEnvelope,
  encodeEnvelope,
  packBatch,
  unpackBatch,
  type Envelope,
  type Kind,
  ProtocolError,
} from '../src/index.ts'
import invalid from '../test-vectors/invalid.json' with { type: 'json' }
import { patternBytes, sampleEnvelope } from './fixtures.ts'

function rejection(fn: () => unknown): ProtocolError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ProtocolError) return error
    throw error
  }
  throw new Error('expected a ProtocolError')
}

const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'hex'))
const frame = (overrides: Partial<Envelope> = {}): Uint8Array => encodeEnvelope(sampleEnvelope(overrides))
const header = {
  docId: sampleEnvelope().docId,
  senderId: sampleEnvelope().senderId,
  messageId: 'ab'.repeat(16),
  seq: 1,
}
const chunkWith = (meta: readonly number[], data: Uint8Array = Uint8Array.of(1)): Envelope => {
  const payload = new Uint8Array(16 + data.length)
  const view = new DataView(payload.buffer)
  meta.forEach((n, i) => view.setUint32(4 * i, n))
  payload.set(data, 16)
  return sampleEnvelope({ kind: 'chunk', payload })
}

const ENVELOPE_MESSAGES: Record<string, RegExp> = {
  PROTO_BAD_MAGIC: /^envelope does not start with the e2e-col magic bytes$/,
  PROTO_UNSUPPORTED_VERSION: /^envelope version 2 is not supported \(this reader knows 1\)$/,
  PROTO_UNKNOWN_KIND: /^envelope kind code 0x7f is unknown$/,
  PROTO_UNKNOWN_FLAGS: /^envelope flags 0x8 set unknown bits$/,
  PROTO_TRUNCATED: /^envelope truncated: payload needs \d+ byte\(s\) at offset \d+, \d+ left$/,
  PROTO_TRAILING_BYTES: /^envelope has 1 byte\(s\) after the payload$/,
  PROTO_NON_CANONICAL_VARINT: /^envelope: seq at offset 53 is overlong$/,
  PROTO_SEQ_OVERFLOW: /^envelope: seq at offset 53 exceeds 9007199254740991$/,
  PROTO_LENGTH_OVERFLOW: /^envelope: payload length at offset 54 exceeds 4294967295$/,
  PROTO_PAYLOAD_TOO_LARGE: /^payload of 16908288 bytes exceeds the limit of 16777216$/,
}

const BODY_MESSAGES: Record<string, RegExp> = {
  'ordinary chat text': /^text is not an e2e-col body$/,
  'version 2 prefix': /^e2e-col body of an unsupported version$/,
  'prefix only': /^body carries no payload$/,
  'line break': /^body has whitespace at character 15$/,
  'padding missing': /^base64 length 3 is not a multiple of 4$/,
  'non-zero pad bits': /^base64 pad bits are not zero$/,
  'base64url alphabet': /^body has a non-base64 character at 11$/,
}

describe('what a rejection says', () => {
  it.each(invalid.envelopes)('invalid envelope ($name): its message names the field and the numbers', (vector) => {
    const e = rejection(() => decodeEnvelope(hex(vector.hex)))
    expect(e.code).toBe(vector.code)
    expect(e.message).toMatch(ENVELOPE_MESSAGES[vector.code] ?? /^$/)
  })

  it.each(invalid.bodies)('invalid body ($name): its message says what is wrong', (vector) => {
    for (const decode of [() => decodeBody(vector.body), () => decodeBodyInto(vector.body, new Uint8Array(64))]) {
      const e = rejection(decode)
      expect(e.code).toBe(vector.code)
      expect(e.message).toMatch(BODY_MESSAGES[vector.name] ?? /^$/)
    }
  })

  const rows: [string, () => unknown, string, RegExp][] = [
    [
      'an unknown kind',
      () => frame({ kind: 'nope' as Kind }),
      'PROTO_INVALID_FIELD',
      /^kind is not in the v1 kind table$/,
    ],
    ['unknown flags', () => frame({ flags: 0x80 }), 'PROTO_INVALID_FIELD', /^flags has bits outside the v1 flag set$/],
    ['a negative seq', () => frame({ seq: -1 }), 'PROTO_INVALID_FIELD', /^seq must be an integer in 0 … 2\^53 − 1$/],
    [
      'a payload that is no Uint8Array',
      () => frame({ payload: [1] as unknown as Uint8Array }),
      'PROTO_INVALID_FIELD',
      /^payload must be a Uint8Array$/,
    ],
    ['a bad docId', () => frame({ docId: 'x' }), 'PROTO_INVALID_FIELD', /^docId must be a lowercase canonical UUID$/],
    [
      'a bad senderId',
      () => frame({ senderId: 'x' }),
      'PROTO_INVALID_FIELD',
      /^senderId must be a lowercase canonical UUID$/,
    ],
    [
      'a bad messageId',
      () => frame({ messageId: 'x' }),
      'PROTO_INVALID_FIELD',
      /^messageId must be 32 lowercase hex digits$/,
    ],
    [
      'a negative payload limit',
      () => decodeEnvelope(frame(), { maxPayloadBytes: -1 }),
      'PROTO_INVALID_OPTION',
      /^maxPayloadBytes must be a non-negative integer$/,
    ],
    [
      'a frame that is no Uint8Array',
      () => decodeEnvelope('x' as unknown as Uint8Array),
      'PROTO_INVALID_FIELD',
      /^frame must be a Uint8Array$/,
    ],
    [
      'a frame cut inside the ids',
      () => decodeEnvelope(frame().subarray(0, 20)),
      'PROTO_TRUNCATED',
      /^envelope truncated: ids needs 48 byte\(s\) at offset 5, 15 left$/,
    ],
    [
      'a frame cut in the magic',
      () => decodeEnvelope(Uint8Array.of(0xe2)),
      'PROTO_TRUNCATED',
      /^envelope truncated: magic needs 1 byte\(s\) at offset 1, 0 left$/,
    ],
    [
      'a frame cut before its version',
      () => decodeEnvelope(Uint8Array.of(0xe2, 0xc0)),
      'PROTO_TRUNCATED',
      /^envelope truncated: version needs 1/,
    ],
    [
      'a frame cut before its kind',
      () => decodeEnvelope(Uint8Array.of(0xe2, 0xc0, 1)),
      'PROTO_TRUNCATED',
      /^envelope truncated: kind needs 1/,
    ],
    [
      'a frame cut before its flags',
      () => decodeEnvelope(Uint8Array.of(0xe2, 0xc0, 1, 1)),
      'PROTO_TRUNCATED',
      /^envelope truncated: flags needs 1/,
    ],
    [
      'a frame cut in its payload length',
      () => decodeEnvelope(frame().subarray(0, 54)),
      'PROTO_TRUNCATED',
      /^envelope truncated: payload length needs 1/,
    ],
    [
      'a nested batch',
      () =>
        packBatch(header, [encodeEnvelope(sampleEnvelope({ kind: 'batch', payload: Uint8Array.of(1, 1, 0) }))], {
          maxBodyBytes: 10_000,
        }),
      'PROTO_BATCH_NESTED',
      /^a batch cannot hold another batch$/,
    ],
    [
      'a zero body limit for a batch',
      () => packBatch(header, [frame()], { maxBodyBytes: 0 }),
      'PROTO_INVALID_OPTION',
      /^maxBodyBytes must be a positive integer$/,
    ],
    [
      'an empty batch',
      () => packBatch(header, [], { maxBodyBytes: 10_000 }),
      'PROTO_BATCH_EMPTY',
      /^nothing to batch$/,
    ],
    [
      'a batch whose first frame does not fit',
      () => packBatch(header, [frame({ payload: patternBytes(2000) })], { maxBodyBytes: 500 }),
      'PROTO_BATCH_TOO_LARGE',
      /^the first frame does not fit a batch within 500/,
    ],
    [
      'unpacking a non-batch',
      () => unpackBatch(sampleEnvelope()),
      'PROTO_WRONG_KIND',
      /^expected a batch envelope, got update$/,
    ],
    [
      'a batch of none',
      () => unpackBatch(sampleEnvelope({ kind: 'batch', payload: Uint8Array.of(0) })),
      'PROTO_BATCH_EMPTY',
      /^batch holds no envelopes$/,
    ],
    [
      'a batch count cut short',
      () => unpackBatch(sampleEnvelope({ kind: 'batch', payload: new Uint8Array(0) })),
      'PROTO_TRUNCATED',
      /^batch truncated: count needs 1 byte\(s\) at offset 0, 0 left$/,
    ],
    [
      'an empty batch entry',
      () => unpackBatch(sampleEnvelope({ kind: 'batch', payload: Uint8Array.of(1, 0) })),
      'PROTO_BATCH_MALFORMED',
      /^batch entry 0 is empty$/,
    ],
    [
      'a batch entry cut short',
      () => unpackBatch(sampleEnvelope({ kind: 'batch', payload: Uint8Array.of(1, 5, 1) })),
      'PROTO_TRUNCATED',
      /^batch truncated: entry 0 needs 5 byte\(s\) at offset 2, 1 left$/,
    ],
    [
      'a local-only envelope in a batch',
      () =>
        unpackBatch(
          sampleEnvelope({ kind: 'batch', payload: Uint8Array.from([1, ...varLen(frame({ kind: 'ack' }))]) }),
        ),
      'PROTO_LOCAL_ONLY',
      /^ack envelopes never leave the machine$/,
    ],
    [
      'bytes after a batch',
      () => unpackBatch(sampleEnvelope({ kind: 'batch', payload: Uint8Array.from([1, ...varLen(frame()), 7]) })),
      'PROTO_TRAILING_BYTES',
      /^batch has 1 byte\(s\) after its last entry$/,
    ],
    [
      'chunking at a zero boundary',
      () => chunkFrame(frame(), { maxBodyBytes: 0 }),
      'PROTO_INVALID_OPTION',
      /^maxBodyBytes must be a positive integer$/,
    ],
    [
      'chunking a local-only envelope',
      () => chunkFrame(frame({ kind: 'error' }), { maxBodyBytes: 200 }),
      'PROTO_LOCAL_ONLY',
      /^error envelopes never leave the machine$/,
    ],
    [
      'chunking a chunk',
      () => chunkFrame(encodeEnvelope(chunkWith([0, 2, 4, 0])), { maxBodyBytes: 200 }),
      'PROTO_WRONG_KIND',
      /^a chunk cannot be chunked again$/,
    ],
    [
      'a chunk that is not one',
      () => decodeChunk(sampleEnvelope()),
      'PROTO_WRONG_KIND',
      /^expected a chunk envelope, got update$/,
    ],
    [
      'chunk metadata cut in its index',
      () => decodeChunk(sampleEnvelope({ kind: 'chunk', payload: Uint8Array.of(0) })),
      'PROTO_TRUNCATED',
      /^chunk truncated: index needs 4 byte\(s\) at offset 0, 1 left$/,
    ],
    [
      'chunk metadata cut in its count',
      () => decodeChunk(sampleEnvelope({ kind: 'chunk', payload: new Uint8Array(5) })),
      'PROTO_TRUNCATED',
      /^chunk truncated: count needs 4/,
    ],
    [
      'chunk metadata cut in its total length',
      () => decodeChunk(sampleEnvelope({ kind: 'chunk', payload: new Uint8Array(9) })),
      'PROTO_TRUNCATED',
      /^chunk truncated: total length needs 4/,
    ],
    [
      'chunk metadata cut in its checksum',
      () => decodeChunk(sampleEnvelope({ kind: 'chunk', payload: new Uint8Array(13) })),
      'PROTO_TRUNCATED',
      /^chunk truncated: checksum needs 4/,
    ],
    [
      'a chunk count of 1',
      () => decodeChunk(chunkWith([0, 1, 4, 0])),
      'PROTO_CHUNK_MALFORMED',
      /^chunk count 1 is below 2$/,
    ],
    [
      'a chunk index at its count',
      () => decodeChunk(chunkWith([3, 3, 4, 0])),
      'PROTO_CHUNK_MALFORMED',
      /^chunk index 3 is not below its count 3$/,
    ],
    [
      'a chunk without data',
      () => decodeChunk(chunkWith([0, 2, 4, 0], new Uint8Array(0))),
      'PROTO_CHUNK_MALFORMED',
      /^chunk carries no data$/,
    ],
    [
      'a chunk total below its count',
      () => decodeChunk(chunkWith([0, 5, 4, 0])),
      'PROTO_CHUNK_MALFORMED',
      /^chunk total length 4 cannot hold 5 chunks of this size$/,
    ],
    [
      'a body limit below the prefix',
      () => decodeBody('e2e-col:v1:AAAA', { maxBodyChars: 3 }),
      'PROTO_INVALID_OPTION',
      /^maxBodyChars must be an integer of at least 11$/,
    ],
    [
      'a body over its limit',
      () => decodeBody(`e2e-col:v1:${'A'.repeat(40)}`, { maxBodyChars: 20 }),
      'PROTO_BODY_TOO_LARGE',
      /^body of 51 characters exceeds the limit of 20$/,
    ],
    [
      'a scratch that is no Uint8Array',
      () => decodeBodyInto('e2e-col:v1:AAAA', [] as unknown as Uint8Array),
      'PROTO_INVALID_OPTION',
      /^scratch must be a Uint8Array$/,
    ],
    [
      'a reassembler without message room',
      () => createReassembler({ maxPartialMessages: 0, maxPartialBytes: 1, ttlMs: 1 }),
      'PROTO_INVALID_OPTION',
      /^maxPartialMessages must be a positive integer$/,
    ],
    [
      'a reassembler without byte room',
      () => createReassembler({ maxPartialMessages: 1, maxPartialBytes: 0, ttlMs: 1 }),
      'PROTO_INVALID_OPTION',
      /^maxPartialBytes must be a positive integer$/,
    ],
    [
      'a reassembler without a ttl',
      () => createReassembler({ maxPartialMessages: 1, maxPartialBytes: 1, ttlMs: 0 }),
      'PROTO_INVALID_OPTION',
      /^ttlMs must be a positive integer$/,
    ],
    [
      'a reassembler remembering nothing',
      () => createReassembler({ maxPartialMessages: 1, maxPartialBytes: 1, ttlMs: 1, maxFinishedMessages: 0 }),
      'PROTO_INVALID_OPTION',
      /^maxFinishedMessages must be a positive integer$/,
    ],
    [
      'a message over maxPartialBytes',
      () =>
        createReassembler({ maxPartialMessages: 1, maxPartialBytes: 100, ttlMs: 1 }).push(chunkWith([0, 2, 200, 0]), 0),
      'PROTO_CHUNK_TOO_LARGE',
      /^message of 200 bytes exceeds maxPartialBytes 100$/,
    ],
    [
      'a dedup window without room',
      () => createDedupWindow({ maxEntries: 0, ttlMs: 1 }),
      'PROTO_INVALID_OPTION',
      /^maxEntries must be a positive integer$/,
    ],
    [
      'a dedup window without a ttl',
      () => createDedupWindow({ maxEntries: 1, ttlMs: 0 }),
      'PROTO_INVALID_OPTION',
      /^ttlMs must be a positive integer$/,
    ],
  ]
  it.each(rows)('%s: the code and a message that says so', (_, fn, code, message) => {
    const e = rejection(fn)
    expect(e.code).toBe(code)
    expect(e.message).toMatch(message)
  })

  it('a reassembled message that fails its checks says which check', () => {
    const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 1 << 20, ttlMs: 60_000 })
    const push = (id: string, chunks: Envelope[]) => chunks.map((c) => r.push({ ...c, messageId: id }, 0)).at(-1)
    const reason = (result: ReturnType<typeof push>) =>
      result?.status === 'rejected' ? result.error.message : result?.status
    const good = chunkFrame(frame({ payload: patternBytes(600) }), { maxBodyBytes: 300 }).map((c) => decodeEnvelope(c))
    const flipped = good.map((c, i) =>
      i === 0 ? { ...c, payload: c.payload.map((b, j) => (j === 20 ? b ^ 1 : b)) } : c,
    )
    expect(reason(push('01'.repeat(16), flipped))).toBe('reassembled frame fails its CRC-32')
    const [a, b] = [chunkWith([0, 2, 4, 0], Uint8Array.of(1, 2, 3)), chunkWith([1, 2, 4, 0], Uint8Array.of(4, 5))]
    expect(reason(push('02'.repeat(16), [a, b]))).toBe('chunks carry more bytes than the total length')
    expect(
      reason(
        push('03'.repeat(16), [
          chunkWith([0, 2, 5, 0], Uint8Array.of(1, 2)),
          chunkWith([1, 2, 5, 0], Uint8Array.of(3, 4)),
        ]),
      ),
    ).toBe('reassembled 4 bytes, expected 5')
    expect(reason(push('04'.repeat(16), [chunkWith([0, 2, 4, 0]), chunkWith([0, 3, 4, 0])]))).toBe(
      'chunk metadata differs from earlier chunks of the message',
    )
    expect(
      reason(
        push('05'.repeat(16), [chunkWith([0, 2, 4, 0], Uint8Array.of(1)), chunkWith([0, 2, 4, 0], Uint8Array.of(2))]),
      ),
    ).toBe('chunk 0 arrived twice with different bytes')
  })
})

/** A batch entry: varint length, then the frame (frames here are under 128 bytes). */
function varLen(f: Uint8Array): number[] {
  if (f.length >= 128) throw new Error('test frame too long for a one-byte length')
  return [f.length, ...f]
}
