/** Every space a copy, a paste or a messenger may insert is reported as whitespace, not as a foreign character. */
import { describe, expect, it } from 'vitest'
import { codeOf } from '../test/fixtures.ts'
import { decodeBase64 } from './base64.ts'

const SPACES = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f,
  0x3000, 0xfeff,
]
// Neighbours of those ranges that are not spaces.
const NOT_SPACES = [0x08, 0x0e, 0x1fff, 0x200b, 0x2027, 0x202a]

describe('whitespace in base64', () => {
  it.each(SPACES.map((c) => [c.toString(16), c]))('U+%s is whitespace', (_, code) => {
    expect(codeOf(() => decodeBase64(`AAAA${String.fromCharCode(code)}AAA`))).toBe(
      'ProtocolError:PROTO_BODY_WHITESPACE',
    )
  })

  it.each(NOT_SPACES.map((c) => [c.toString(16), c]))('U+%s is a foreign character', (_, code) => {
    expect(codeOf(() => decodeBase64(`AAAA${String.fromCharCode(code)}AAA`))).toBe(
      'ProtocolError:PROTO_BODY_NOT_CANONICAL',
    )
  })

  // The digit table has 256 entries: the first code past it is foreign, and it is the first bad
  // character even when a space follows.
  it.each([0xff, 0x100, 0x101].map((c) => [c.toString(16), c]))(
    'U+%s before a space is reported as the foreign character it is',
    (_, code) => {
      expect(codeOf(() => decodeBase64(`AA${String.fromCharCode(code)} `))).toBe(
        'ProtocolError:PROTO_BODY_NOT_CANONICAL',
      )
    },
  )
})
