/**
 * A plugged-in codec is there for speed: canonical text must reach it (and its bytes be handed
 * out) rather than fall back to the portable decoder, which gives the same bytes, only slower, so
 * no verdict shows the difference.
 */
import { describe, expect, it } from 'vitest'
import { codeOf, patternBytes } from '../test/fixtures.ts'
import { decodeBase64Via, decodeBase64ViaInto, type Base64Codec } from './base64-codec.ts'

/** Node's Buffer codec, counting the texts it was asked to decode. */
function countingCodec(): Base64Codec & { decoded: string[]; decodedInto: string[] } {
  const decoded: string[] = []
  const decodedInto: string[] = []
  return {
    decoded,
    decodedInto,
    encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
    decode: (text) => {
      decoded.push(text)
      return new Uint8Array(Buffer.from(text, 'base64'))
    },
    decodeInto: (text, target) => {
      decodedInto.push(text)
      return Buffer.from(text, 'base64').copy(target)
    },
  }
}

// No, one and two pad characters; a text longer than the 8192-character probe buffer.
const CASES = [patternBytes(3), patternBytes(4), patternBytes(5), patternBytes(7000)]

describe('a plugged-in base64 codec', () => {
  it.each(CASES.map((b) => [b.length, b] as const))(
    'decodes canonical text of %i bytes itself, and its bytes are the answer',
    (_, bytes) => {
      const codec = countingCodec()
      const text = Buffer.from(bytes).toString('base64')
      const out = decodeBase64Via(codec, text, 0, text.length)
      expect(codec.decoded).toEqual([text])
      expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true)
    },
  )

  it('decodes a canonical range of a longer text itself, handed only that range', () => {
    const text = Buffer.from(patternBytes(10)).toString('base64')
    // Inside the text, and running to its end (as a body's base64 after its prefix does).
    for (const [whole, start] of [
      [`xy${text}z`, 2],
      [`xy${text}`, 2],
    ] as const) {
      const codec = countingCodec()
      const out = decodeBase64Via(codec, whole, start, start + text.length)
      expect(codec.decoded).toEqual([text])
      expect(Array.from(out)).toEqual(Array.from(patternBytes(10)))
    }
  })

  it.each(CASES.map((b) => [b.length, b] as const))(
    'decodes canonical text of %i bytes into the caller’s buffer when it fits',
    (_, bytes) => {
      const codec = countingCodec()
      const text = Buffer.from(bytes).toString('base64')
      const target = new Uint8Array(bytes.length)
      const out = decodeBase64ViaInto(codec, text, 0, text.length, target)
      expect(codec.decodedInto).toEqual([text])
      expect(out.buffer).toBe(target.buffer)
      expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true)
    },
  )

  it('decodes into fresh bytes when the caller’s buffer is too small', () => {
    const codec = countingCodec()
    const text = Buffer.from(patternBytes(9)).toString('base64')
    const target = new Uint8Array(8)
    const out = decodeBase64ViaInto(codec, text, 0, text.length, target)
    expect(codec.decodedInto).toEqual([])
    expect(out.buffer).not.toBe(target.buffer)
    expect(Array.from(out)).toEqual(Array.from(patternBytes(9)))
  })

  it('is not trusted with text that is not canonical: the portable decoder answers', () => {
    const codec = countingCodec()
    for (const text of ['', 'AQI', 'ab-_', 'ab_c', 'QR==', 'QUF=', 'QUFé']) {
      expect(codeOf(() => decodeBase64Via(codec, text, 0, text.length))).toMatch(
        text === '' ? /^no error$/ : /^ProtocolError:PROTO_BODY_/,
      )
    }
    expect(codec.decoded).toEqual([])
  })
})
