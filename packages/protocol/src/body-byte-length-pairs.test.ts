/**
 * `bodyByteLength` against the platform's UTF-8 encoder on strings mixing code units on both sides
 * of every surrogate and width boundary, so each half of the surrogate-pair test is exercised with
 * a neighbour that almost pairs.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { codeOf } from '../test/fixtures.ts'
import { bodyByteLength, decodeBody, BODY_PREFIX } from './body.ts'

const UNITS = [0x41, 0x7f, 0x80, 0x7ff, 0x800, 0x4e00, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xffff]
const encoder = new TextEncoder()

describe('bodyByteLength next to surrogates', () => {
  it('equals the UTF-8 length the platform encoder gives (lone surrogates as U+FFFD)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...UNITS), { maxLength: 8 }), (units) => {
        const text = String.fromCharCode(...units)
        expect(bodyByteLength(text)).toBe(encoder.encode(text).length)
      }),
      { numRuns: 2000 },
    )
  })

  it('counts a high surrogate as the last unit on its own', () => {
    expect(bodyByteLength('a\ud800')).toBe(4)
    expect(bodyByteLength('\u4e00\udc00')).toBe(6)
  })
})

describe('maxBodyChars at the prefix length', () => {
  it('takes a bound of exactly the prefix length as valid (the empty body is refused for itself)', () => {
    expect(codeOf(() => decodeBody(BODY_PREFIX, { maxBodyChars: BODY_PREFIX.length }))).toBe(
      'ProtocolError:PROTO_BODY_EMPTY',
    )
    expect(codeOf(() => decodeBody(BODY_PREFIX, { maxBodyChars: BODY_PREFIX.length - 1 }))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
  })
})
