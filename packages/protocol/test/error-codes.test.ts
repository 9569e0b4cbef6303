/** Every error code is part of the contract: documented in docs/protocol.md §3.9 and recognisable. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isProtocolError, PROTOCOL_ERROR_CODES, ProtocolError } from '../src/index.ts'

const section3 = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8')

describe('ProtocolError codes', () => {
  it.each(PROTOCOL_ERROR_CODES)('%s has a row in the contract’s error table', (code) => {
    expect(section3).toContain(`| \`${code}\` |`)
  })

  it('the contract lists no code the package does not have', () => {
    const documented = [...section3.matchAll(/^\| `(PROTO_[A-Z_]+)` \|/gm)].map((m) => m[1])
    expect(new Set(documented)).toEqual(new Set(PROTOCOL_ERROR_CODES))
    expect(documented).toHaveLength(PROTOCOL_ERROR_CODES.length)
  })

  it('isProtocolError recognises the class by shape and rejects look-alikes', () => {
    expect(isProtocolError(new ProtocolError('PROTO_TRUNCATED', 'x'))).toBe(true)
    expect(isProtocolError(Object.assign(new Error('x'), { name: 'ProtocolError', code: 'PROTO_NOPE' }))).toBe(false)
    expect(isProtocolError({ name: 'ProtocolError', code: 'PROTO_TRUNCATED' })).toBe(false)
    expect(isProtocolError(new TypeError('x'))).toBe(false)
  })
})
