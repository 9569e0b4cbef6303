import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import attachmentVector from '../test-vectors/attachment.json' with { type: 'json' }
import { codeOf, sampleEnvelope } from './fixtures.ts'
import {
  attachmentFileName,
  decodeAttachmentRef,
  decodeBody,
  decodeEnvelope,
  encodeAttachmentRef,
  encodeBody,
  encodeEnvelope,
  openAttachment,
  ATTACHMENT_REF_PAYLOAD_BYTES,
} from '../src/index.ts'

const fromHex = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16))
const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest())

describe('attachment reference golden vector', () => {
  it('the stored frame gives the stored digest, reference and body, and opens back to the frame', () => {
    const frame = fromHex(attachmentVector.frame)
    expect(toHex(sha256(frame))).toBe(attachmentVector.sha256)
    const ref = encodeAttachmentRef(frame, fromHex(attachmentVector.sha256))
    expect(toHex(ref)).toBe(attachmentVector.ref)
    expect(encodeBody(ref)).toBe(attachmentVector.body)
    const refEnv = decodeEnvelope(decodeBody(attachmentVector.body))
    expect(encodeEnvelope(openAttachment(refEnv, frame, sha256(frame)))).toEqual(frame)
    expect(attachmentFileName(refEnv.messageId)).toBe(attachmentVector.fileName)
  })
})

describe('attachment references', () => {
  const frame = encodeEnvelope(sampleEnvelope({ kind: 'snapshot', payload: new Uint8Array(5000).fill(7) }))
  const ref = decodeEnvelope(encodeAttachmentRef(frame, sha256(frame)))

  it('repeat the carried header, so a receiver can deduplicate before fetching', () => {
    const carried = decodeEnvelope(frame)
    expect(ref).toMatchObject({
      kind: 'attachment',
      docId: carried.docId,
      senderId: carried.senderId,
      messageId: carried.messageId,
      seq: carried.seq,
      flags: carried.flags,
    })
    expect(ref.payload.length).toBe(ATTACHMENT_REF_PAYLOAD_BYTES)
    expect(decodeAttachmentRef(ref).totalLength).toBe(frame.length)
  })

  it('refuse bytes of another length, another digest, or another header', () => {
    expect(codeOf(() => openAttachment(ref, frame.subarray(1), sha256(frame.subarray(1))))).toBe(
      'ProtocolError:PROTO_ATTACHMENT_INTEGRITY',
    )
    const flipped = frame.slice()
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1
    expect(codeOf(() => openAttachment(ref, flipped, sha256(flipped)))).toBe('ProtocolError:PROTO_ATTACHMENT_INTEGRITY')
    // A frame of the same length under another message id, with a reference forged to its digest.
    const other = encodeEnvelope(
      sampleEnvelope({ kind: 'snapshot', messageId: 'ff'.repeat(16), payload: new Uint8Array(5000).fill(7) }),
    )
    const forged = { ...ref, payload: decodeEnvelope(encodeAttachmentRef(other, sha256(other))).payload }
    expect(codeOf(() => openAttachment(forged, other, sha256(other)))).toBe('ProtocolError:PROTO_ATTACHMENT_INTEGRITY')
  })

  it('are never made for packaging or local-only kinds', () => {
    for (const kind of ['chunk', 'batch', 'attachment'] as const) {
      const f = encodeEnvelope(sampleEnvelope({ kind, payload: new Uint8Array(40) }))
      expect(codeOf(() => encodeAttachmentRef(f, sha256(f)))).toBe('ProtocolError:PROTO_WRONG_KIND')
    }
    const ack = encodeEnvelope(sampleEnvelope({ kind: 'ack', payload: new Uint8Array(0) }))
    expect(codeOf(() => encodeAttachmentRef(ack, sha256(ack)))).toBe('ProtocolError:PROTO_LOCAL_ONLY')
    expect(codeOf(() => encodeAttachmentRef(frame, new Uint8Array(31)))).toBe('ProtocolError:PROTO_INVALID_FIELD')
  })

  it('refuse a malformed reference payload', () => {
    expect(codeOf(() => decodeAttachmentRef({ ...ref, payload: ref.payload.subarray(1) }))).toBe(
      'ProtocolError:PROTO_ATTACHMENT_MALFORMED',
    )
    expect(codeOf(() => decodeAttachmentRef({ ...ref, payload: new Uint8Array(ATTACHMENT_REF_PAYLOAD_BYTES) }))).toBe(
      'ProtocolError:PROTO_ATTACHMENT_MALFORMED',
    )
    expect(codeOf(() => decodeAttachmentRef({ ...ref, kind: 'update' }))).toBe('ProtocolError:PROTO_WRONG_KIND')
  })
})
