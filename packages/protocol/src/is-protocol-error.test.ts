import { describe, expect, it } from 'vitest'
import { CodedError } from './coded-error.ts'
import { isProtocolError, ProtocolError } from './errors.ts'

/** An Error named like a ProtocolError of another package copy, with `code` as given. */
const named = (code: unknown): Error => Object.assign(new Error('x'), { name: 'ProtocolError', code })

describe('isProtocolError', () => {
  it('accepts a ProtocolError of every code', () => {
    expect(isProtocolError(new ProtocolError('PROTO_BAD_MAGIC', 'x'))).toBe(true)
    expect(isProtocolError(new ProtocolError('PROTO_TRUNCATED', 'x'))).toBe(true)
  })

  it('accepts an Error of another package copy: same name, a known code', () => {
    const copy = Object.assign(new Error('x'), { name: 'ProtocolError', code: 'PROTO_BAD_MAGIC' })
    expect(isProtocolError(copy)).toBe(true)
  })

  it('refuses an Error carrying a protocol code under another name', () => {
    expect(isProtocolError(new CodedError('PROTO_BAD_MAGIC', 'x'))).toBe(false)
    expect(isProtocolError(Object.assign(new Error('x'), { code: 'PROTO_BAD_MAGIC' }))).toBe(false)
  })

  it('refuses a plain object shaped like a ProtocolError', () => {
    expect(isProtocolError({ name: 'ProtocolError', code: 'PROTO_BAD_MAGIC', message: 'x' })).toBe(false)
    expect(isProtocolError(undefined)).toBe(false)
    expect(isProtocolError('ProtocolError')).toBe(false)
  })

  it('refuses a ProtocolError-named Error whose code is unknown or not a string', () => {
    expect(isProtocolError(named('PROTO_NOT_A_CODE'))).toBe(false)
    expect(isProtocolError(named('proto_bad_magic'))).toBe(false)
    expect(isProtocolError(named(7))).toBe(false)
    expect(isProtocolError(named(undefined))).toBe(false)
  })
})
