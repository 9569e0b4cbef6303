import {
  ATTACHMENT_CONTENT_TYPE,
  attachmentFileName,
  decodeBody,
  decodeEnvelope,
  encodeEnvelope,
  openAttachment,
} from '@e2e-col/protocol'
import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { attachmentSend, sha256 } from './attachment-send.ts'
import { DOC, envelopeFrame, SENDER } from './send-fixture.ts'

const bigFrame = () => envelopeFrame(new Uint8Array(randomBytes(6000)), { kind: 'snapshot', seq: 3 })

/** The bytes of a `data:` URI, after checking its content type and file name. */
function dataUriBytes(uri: string, messageId: string): Uint8Array {
  const prefix = `data:${ATTACHMENT_CONTENT_TYPE};filename=${attachmentFileName(messageId)};base64,`
  expect(uri.startsWith(prefix)).toBe(true)
  return new Uint8Array(Buffer.from(uri.slice(prefix.length), 'base64'))
}

describe('attachment send', () => {
  it('carries a frame as one attachment named by a short reference body that a receiver can open', () => {
    const { frame, messageId } = bigFrame()
    const send = attachmentSend(frame)
    expect(send.attachments).toHaveLength(1)
    const ref = decodeEnvelope(decodeBody(send.body))
    expect(ref).toMatchObject({ kind: 'attachment', docId: DOC, senderId: SENDER, messageId, seq: 3 })
    const bytes = dataUriBytes(send.attachments[0] ?? '', messageId)
    expect(bytes).toEqual(frame)
    // What a receiver does: check length and digest against the reference, decode the header.
    const opened = openAttachment(ref, bytes, sha256(bytes))
    expect(opened.kind).toBe('snapshot')
    expect(encodeEnvelope(opened)).toEqual(frame)
  })

  it('carries exactly the frame when it is a view into a larger buffer', () => {
    const { frame, messageId } = bigFrame()
    const backing = new Uint8Array(frame.byteLength + 64).fill(0xee)
    backing.set(frame, 32)
    const view = backing.subarray(32, 32 + frame.byteLength)
    const send = attachmentSend(view)
    expect(dataUriBytes(send.attachments[0] ?? '', messageId)).toEqual(frame)
  })

  it('hashes with SHA-256', () => {
    const bytes = new TextEncoder().encode('e2e-col')
    expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'))
    expect(sha256(bytes)).toHaveLength(32)
  })

  it('refuses a kind that is never carried as an attachment', () => {
    const { frame } = envelopeFrame(new Uint8Array(10), { kind: 'chunk', seq: 0 })
    expect(() => attachmentSend(frame)).toThrow(/not carried/)
  })
})
