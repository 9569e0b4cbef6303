import { describe, expect, it } from 'vitest'
import { codeOf, messageOf } from './error-code.ts'

describe('reading a thrown value', () => {
  it('takes a string code from any object, and nothing from a value that carries none or a number', () => {
    expect(codeOf(Object.assign(new Error('x'), { code: 'SIDECAR_STORE_FAILED' }))).toBe('SIDECAR_STORE_FAILED')
    expect(codeOf({ code: 'DOCS_STOPPING' })).toBe('DOCS_STOPPING')
    expect(codeOf(Object.assign(new Error('x'), { code: -32602 }))).toBeUndefined()
    expect(codeOf(new Error('plain'))).toBeUndefined()
    expect(codeOf('SIDECAR_STORE_FAILED')).toBeUndefined()
    expect(codeOf(null)).toBeUndefined()
  })

  it('reads the message of an error or error-like object, and the text of anything else', () => {
    expect(messageOf(new Error('disk full'))).toBe('disk full')
    expect(messageOf({ message: 'from another copy' })).toBe('from another copy')
    expect(messageOf('thrown text')).toBe('thrown text')
    expect(messageOf(42)).toBe('42')
    expect(messageOf({ message: 7 })).toBe('[object Object]')
    expect(messageOf(undefined)).toBe('undefined')
  })
})
