import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { codeOf } from '../test/fixtures.ts'
import { bodyByteLength, bodyCapacity, bodyLengthFor, BODY_PREFIX, decodeBody, encodeBody } from './body.ts'
import { isProtocolError } from './errors.ts'

const nodeBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64')

describe('encodeBody', () => {
  it('is the v1 prefix followed by standard padded base64, as Node encodes it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(encodeBody(bytes)).toBe(BODY_PREFIX + nodeBase64(bytes))
      }),
    )
    expect(encodeBody(Uint8Array.of(0xfb, 0xff))).toBe('e2e-col:v1:+/8=')
  })

  it('encodes a sub-range without copying the caller’s bytes', () => {
    expect(encodeBody(Uint8Array.of(9, 1, 2, 3, 9), 1, 4)).toBe(BODY_PREFIX + nodeBase64(Uint8Array.of(1, 2, 3)))
  })

  it('round-trips through decodeBody', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
        expect(decodeBody(encodeBody(bytes))).toEqual(bytes)
      }),
    )
  })

  it('sizes match: bodyLengthFor gives the length, bodyCapacity the most bytes that fit', () => {
    for (let n = 0; n < 40; n++) expect(encodeBody(new Uint8Array(n)).length).toBe(bodyLengthFor(n))
    for (let limit = BODY_PREFIX.length; limit < 60; limit++) {
      const cap = bodyCapacity(limit)
      expect(bodyLengthFor(cap)).toBeLessThanOrEqual(limit)
      expect(bodyLengthFor(cap + 1)).toBeGreaterThan(limit)
    }
    expect(bodyCapacity(2000)).toBe(1491)
  })
})

describe('decodeBody rejects, each with its own code', () => {
  it('PROTO_BODY_FOREIGN for ordinary chat text', () => {
    expect(codeOf(() => decodeBody('hello there'))).toBe('ProtocolError:PROTO_BODY_FOREIGN')
    expect(codeOf(() => decodeBody('E2E-COL:v1:AAAA'))).toBe('ProtocolError:PROTO_BODY_FOREIGN')
  })
  it('PROTO_BODY_UNSUPPORTED_VERSION for another version of our prefix', () => {
    expect(codeOf(() => decodeBody('e2e-col:v2:AAAA'))).toBe('ProtocolError:PROTO_BODY_UNSUPPORTED_VERSION')
  })
  it('PROTO_BODY_EMPTY for a prefix with nothing after it', () => {
    expect(codeOf(() => decodeBody(BODY_PREFIX))).toBe('ProtocolError:PROTO_BODY_EMPTY')
  })
  it('PROTO_BODY_WHITESPACE for spaces, newlines or Unicode spaces anywhere in the payload', () => {
    for (const body of ['AAAA AAAA', 'AAAA\n', '\tAAA', 'AA\u00a0A', 'AAAA\r\nAAAA']) {
      expect(codeOf(() => decodeBody(BODY_PREFIX + body))).toBe('ProtocolError:PROTO_BODY_WHITESPACE')
    }
  })
  it('PROTO_BODY_NOT_CANONICAL for missing padding, stray padding, foreign letters and non-zero pad bits', () => {
    for (const body of ['AAA', 'AA', 'AA==AAAA', 'A===', '====', 'AB==', 'AAB=', 'AA-_', 'AAAé', 'AA=A']) {
      expect(
        codeOf(() => decodeBody(BODY_PREFIX + body)),
        body,
      ).toBe('ProtocolError:PROTO_BODY_NOT_CANONICAL')
    }
    // The canonical forms of the same bits are accepted.
    expect(decodeBody(`${BODY_PREFIX}AA==`)).toEqual(Uint8Array.of(0))
    expect(decodeBody(`${BODY_PREFIX}AAA=`)).toEqual(Uint8Array.of(0, 0))
  })
  it('PROTO_BODY_TOO_LARGE for a body over maxBodyChars', () => {
    const body = encodeBody(new Uint8Array(30))
    expect(codeOf(() => decodeBody(body, { maxBodyChars: body.length - 1 }))).toBe('ProtocolError:PROTO_BODY_TOO_LARGE')
    expect(decodeBody(body, { maxBodyChars: body.length })).toEqual(new Uint8Array(30))
  })
  it('PROTO_INVALID_OPTION for a limit shorter than the prefix', () => {
    expect(codeOf(() => decodeBody(encodeBody(Uint8Array.of(1)), { maxBodyChars: 3 }))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
  })

  it('throws only ProtocolError for arbitrary text, however long or strange', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string().map((t) => BODY_PREFIX + t),
        ),
        (text) => {
          try {
            decodeBody(text, { maxBodyChars: 64 })
          } catch (error) {
            expect(isProtocolError(error)).toBe(true)
          }
        },
      ),
    )
  })

  it('accepts exactly what Node accepts among canonical encodings and throws only ProtocolError otherwise', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AQgw+/=\n é'.split('')), maxLength: 24 }), (tail) => {
        let bytes: Uint8Array | undefined
        try {
          bytes = decodeBody(BODY_PREFIX + tail)
        } catch (error) {
          expect(isProtocolError(error)).toBe(true)
          return
        }
        // Anything accepted must be the one canonical encoding of its bytes.
        expect(nodeBase64(bytes)).toBe(tail)
      }),
    )
  })
})

describe('bodyByteLength', () => {
  it('counts UTF-8 bytes as TextEncoder does, surrogate pairs as 4', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(bodyByteLength(text)).toBe(new TextEncoder().encode(text).length)
      }),
    )
    expect(bodyByteLength('a\u00e9\u20ac\u{1f600}')).toBe(1 + 2 + 3 + 4)
    expect(bodyByteLength('\ud800x')).toBe(3 + 1)
  })
})
