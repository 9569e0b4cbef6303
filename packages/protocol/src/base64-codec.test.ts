import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { codeOf, expectSameBytes, patternBytes } from '../test/fixtures.ts'
import { decodeBase64, encodeBase64 } from './base64.ts'
import { decodeBase64Via, encodeBase64Via, type Base64Codec } from './base64-codec.ts'
import { arbCorruption, arbHostileText, corrupt, nodeCodec, verdict } from '../test/base64-fixtures.ts'

describe('decodeBase64Via with a lenient native codec', () => {
  it('decodes canonical text exactly like the portable decoder, also at an offset', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64')
        expectSameBytes(decodeBase64Via(nodeCodec, text, 0, text.length), bytes)
        expectSameBytes(decodeBase64Via(nodeCodec, `pre${text}`, 3, text.length + 3), bytes)
      }),
    )
  })

  it('hands out a plain Uint8Array, not the codec’s Buffer (whose slice would not copy)', () => {
    const out = decodeBase64Via(nodeCodec, 'AQID', 0, 4)
    expect(out.constructor).toBe(Uint8Array)
    expect(Array.from(out)).toEqual([1, 2, 3])
  })

  it('gives the portable verdict and error code for every single-character corruption of valid text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), arbCorruption, (bytes, corruption) => {
        const text = corrupt(Buffer.from(bytes).toString('base64'), corruption)
        expect(verdict(() => decodeBase64Via(nodeCodec, text, 0, text.length))).toBe(verdict(() => decodeBase64(text)))
      }),
      { numRuns: 2000 },
    )
  })

  it('gives the portable verdict and error code for arbitrary text over a hostile alphabet', () => {
    fc.assert(
      fc.property(arbHostileText(24), (text) => {
        expect(verdict(() => decodeBase64Via(nodeCodec, text, 0, text.length))).toBe(verdict(() => decodeBase64(text)))
      }),
      { numRuns: 2000 },
    )
  })

  it('rejects the cases a lenient decoder would accept: URL-safe digits, non-zero pad bits, masked wide characters', () => {
    // 'QE==': the last digit's two low bits are clear, its four are not (two pads need four).
    for (const text of ['ab-_', 'QR==', 'QE==', 'QUF=', 'QUF\u0142', 'Q\u0100\u0100B', 'QUFB QUF', 'QQ==QUFB']) {
      expect(codeOf(() => decodeBase64Via(nodeCodec, text, 0, text.length))).toBe(codeOf(() => decodeBase64(text)))
      expect(codeOf(() => decodeBase64Via(nodeCodec, text, 0, text.length))).toMatch(/^ProtocolError:PROTO_BODY_/)
    }
  })

  it('falls back to the exact decoder when a codec returns the wrong number of bytes', () => {
    const short: Base64Codec = { encode: nodeCodec.encode, decode: () => new Uint8Array(1) }
    expect(Array.from(decodeBase64Via(short, 'AQID', 0, 4))).toEqual([1, 2, 3])
  })
})

describe('encodeBase64Via', () => {
  it('gives the portable encoding through a native codec, for whole arrays and sub-ranges', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const start = bytes.length === 0 ? 0 : a % bytes.length
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1))
        expect(encodeBase64Via(nodeCodec, bytes, start, end)).toBe(encodeBase64(bytes, start, end))
      }),
    )
    const big = patternBytes(100_000)
    expect(encodeBase64Via(nodeCodec, big, 0, big.length)).toBe(encodeBase64(big))
  })

  it('PROTO_INVALID_OPTION for a codec that does not pad', () => {
    const unpadded: Base64Codec = { encode: (b) => Buffer.from(b).toString('base64url'), decode: nodeCodec.decode }
    expect(codeOf(() => encodeBase64Via(unpadded, Uint8Array.of(1, 2), 0, 2))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
  })
})
