import { describe, expect, it } from 'vitest'
import { decodeJavaBase64 } from './java-base64.ts'

const fail = (text: string): string | undefined => {
  const r = decodeJavaBase64(text)
  return r.ok ? undefined : r.message
}

describe('decodeJavaBase64 (java.util.Base64 basic decoder)', () => {
  it('decodes padded and unpadded input like Buffer does', () => {
    for (const bytes of [[], [1], [1, 2], [1, 2, 3], [0xff, 0xfe, 0xfd, 0xfc]]) {
      const b64 = Buffer.from(bytes).toString('base64')
      expect(decodeJavaBase64(b64)).toEqual({ ok: true, bytes: Buffer.from(bytes) })
      expect(decodeJavaBase64(b64.replace(/=+$/, ''))).toEqual({ ok: true, bytes: Buffer.from(bytes) })
    }
  })

  it('names an illegal character by its hex byte, as the JVM prints it', () => {
    expect(fail('nope!')).toBe('Illegal base64 character 21')
    expect(fail('ab-c')).toBe('Illegal base64 character 2d')
    expect(fail('abé=')).toBe('Illegal base64 character -17')
    expect(fail('ab€=')).toBe('Illegal base64 character 3f')
  })

  it('words bad endings as Java does', () => {
    expect(fail('a')).toBe('Input byte[] should at least have 2 bytes for base64 bytes')
    expect(fail('abcde')).toBe('Last unit does not have enough valid bits')
    expect(fail('ab=c')).toBe('Input byte array has wrong 4-byte ending unit')
    expect(fail('=abc')).toBe('Input byte array has wrong 4-byte ending unit')
    expect(fail('ab==cd')).toBe('Input byte array has incorrect ending byte at 4')
  })
})
