import { describe, expect, it } from 'vitest'
import { codeOf, sampleEnvelope } from '../test/fixtures.ts'
import { decodeEnvelope, encodeEnvelope } from './envelope.ts'
import { isMessageId, isUuid, newMessageId, writeMessageId, writeUuid } from './ids.ts'

describe('ids', () => {
  it('decoding frames whose ids differ in any one byte gives each frame its own ids (the reuse cache never goes stale)', () => {
    const base = encodeEnvelope(sampleEnvelope())
    for (let offset = 5; offset < 5 + 3 * 16; offset++) {
      const other = base.slice()
      other[offset] = (other[offset] ?? 0) ^ 0x01
      const a = decodeEnvelope(base)
      const b = decodeEnvelope(other)
      expect(decodeEnvelope(base)).toEqual(a)
      expect([b.docId, b.senderId, b.messageId]).not.toEqual([a.docId, a.senderId, a.messageId])
      expect(encodeEnvelope(b)).toEqual(other)
    }
  })

  it('newMessageId formats the 16 injected random bytes as 32 lowercase hex digits', () => {
    const id = newMessageId((n) => Uint8Array.from({ length: n }, (_, i) => i * 17))
    expect(id).toBe('00112233445566778899aabbccddeeff')
    expect(isMessageId(id)).toBe(true)
  })

  it('newMessageId refuses a random source that returns the wrong length', () => {
    expect(codeOf(() => newMessageId(() => new Uint8Array(15)))).toBe('ProtocolError:PROTO_INVALID_FIELD')
  })

  it('accepts only lowercase canonical text forms', () => {
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(true)
    expect(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(false)
    expect(isUuid('{0f8fad5b-d9cb-469f-a165-70867728950e}')).toBe(false)
    expect(isMessageId('00112233445566778899aabbccddeeff')).toBe(true)
    expect(isMessageId('00112233445566778899aabbccddeef')).toBe(false)
    expect(isMessageId(42)).toBe(false)
  })

  it('writing an id fills its 16 bytes and leaves the byte after them alone', () => {
    const target = new Uint8Array(18).fill(0xaa)
    writeUuid('0f8fad5b-d9cb-469f-a165-70867728950e', 'docId', target, 1)
    expect(Buffer.from(target).toString('hex')).toBe('aa0f8fad5bd9cb469fa16570867728950eaa')
    target.fill(0xaa)
    writeMessageId('00112233445566778899aabbccddeeff', target, 1)
    expect(Buffer.from(target).toString('hex')).toBe('aa00112233445566778899aabbccddeeffaa')
  })
})
