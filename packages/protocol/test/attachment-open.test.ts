/**
 * Opening a fetched attachment: every header field, the length, the digest and the carried kind
 * are checked on their own, each refusal saying which.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { failure, sampleEnvelope } from './fixtures.ts'
import { decodeAttachmentRef, encodeAttachmentRef, openAttachment } from '../src/attachment-ref.ts'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../src/envelope.ts'

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest())

/** An attachment reference to `frame` under `header`, built by hand (the encoder refuses odd kinds). */
function refTo(frame: Uint8Array, header: Partial<Envelope> = {}): Envelope {
  const payload = new Uint8Array(36)
  new DataView(payload.buffer).setUint32(0, frame.length)
  payload.set(sha256(frame), 4)
  return sampleEnvelope({ ...header, kind: 'attachment', payload })
}

const frame = encodeEnvelope(sampleEnvelope({ kind: 'snapshot', payload: new Uint8Array(3000).fill(7) }))

describe('openAttachment', () => {
  it('opens bytes that match their reference', () => {
    expect(openAttachment(refTo(frame), frame, sha256(frame)).kind).toBe('snapshot')
  })

  it.each([
    ['document', { docId: '1f8fad5b-d9cb-469f-a165-70867728950e' }],
    ['sender', { senderId: '8c9e6679-7425-40de-944b-e07fc1f90ae7' }],
    ['message id', { messageId: 'ff112233445566778899aabbccddeeff' }],
    ['seq', { seq: 99 }],
    ['flags', { flags: 1 }],
  ] as const)('refuses a carried frame whose %s differs from the reference', (_, header) => {
    expect(failure(() => openAttachment(refTo(frame, header), frame, sha256(frame)))).toBe(
      'PROTO_ATTACHMENT_INTEGRITY: carried envelope header differs from the reference',
    )
  })

  it('refuses bytes of another length, naming both', () => {
    const longer = Uint8Array.from([...frame, 0])
    expect(failure(() => openAttachment(refTo(frame), longer, sha256(longer)))).toBe(
      `PROTO_ATTACHMENT_INTEGRITY: attachment is ${frame.length + 1} bytes, the reference says ${frame.length}`,
    )
  })

  it('refuses another digest, including a shorter one that agrees as far as it goes', () => {
    const other = sha256(frame).slice()
    other[31] = (other[31] ?? 0) ^ 1
    for (const digest of [other, sha256(frame).subarray(0, 31)]) {
      expect(failure(() => openAttachment(refTo(frame), frame, digest))).toBe(
        'PROTO_ATTACHMENT_INTEGRITY: attachment SHA-256 differs from the reference',
      )
    }
  })

  it.each(['chunk', 'batch', 'attachment', 'ack', 'error'] as const)('refuses a carried %s envelope', (kind) => {
    const odd = encodeEnvelope(sampleEnvelope({ kind, payload: new Uint8Array(40).fill(1) }))
    expect(failure(() => openAttachment(refTo(odd), odd, sha256(odd)))).toBe(
      `PROTO_ATTACHMENT_INTEGRITY: a ${kind} envelope cannot be carried`,
    )
  })
})

describe('attachment references refuse, saying why', () => {
  it('encoding for a local-only or packaging kind, or with a digest of the wrong size', () => {
    const ack = encodeEnvelope(sampleEnvelope({ kind: 'ack', payload: new Uint8Array(0) }))
    expect(failure(() => encodeAttachmentRef(ack, sha256(ack)))).toBe(
      'PROTO_LOCAL_ONLY: ack envelopes never leave the machine',
    )
    const chunk = encodeEnvelope(sampleEnvelope({ kind: 'chunk', payload: new Uint8Array(20) }))
    expect(failure(() => encodeAttachmentRef(chunk, sha256(chunk)))).toBe(
      'PROTO_WRONG_KIND: a chunk envelope is not carried as an attachment',
    )
    expect(failure(() => encodeAttachmentRef(frame, new Uint8Array(31)))).toBe(
      'PROTO_INVALID_FIELD: sha256 must be 32 bytes',
    )
  })

  it('decoding another kind, a payload of the wrong size, or a zero length', () => {
    expect(failure(() => decodeAttachmentRef(decodeEnvelope(frame)))).toBe(
      'PROTO_WRONG_KIND: expected an attachment envelope, got snapshot',
    )
    expect(
      failure(() => decodeAttachmentRef(sampleEnvelope({ kind: 'attachment', payload: new Uint8Array(35) }))),
    ).toBe('PROTO_ATTACHMENT_MALFORMED: attachment payload is 35 bytes, not 36')
    expect(
      failure(() => decodeAttachmentRef(sampleEnvelope({ kind: 'attachment', payload: new Uint8Array(36) }))),
    ).toBe('PROTO_ATTACHMENT_MALFORMED: attachment names an empty frame')
  })
})
