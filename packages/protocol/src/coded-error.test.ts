import { describe, expect, test } from 'vitest'
import { CodedError } from './coded-error.ts'
import { isProtocolError, ProtocolError } from './errors.ts'

class ExampleError extends CodedError<'EXAMPLE_ONE' | 'EXAMPLE_TWO'> {
  override readonly name = 'ExampleError'
}

describe('CodedError', () => {
  test('a subclass keeps its code, message, cause and name, and reads as an Error', () => {
    const cause = new Error('underneath')
    const error = new ExampleError('EXAMPLE_TWO', 'it went wrong', { cause })
    expect(error).toBeInstanceOf(Error)
    expect(error.code).toBe('EXAMPLE_TWO')
    expect(error.message).toBe('it went wrong')
    expect(error.cause).toBe(cause)
    expect(error.name).toBe('ExampleError')
    expect(String(error)).toBe('ExampleError: it went wrong')
  })

  test('the protocol error is one, and is still recognised by shape', () => {
    const error = new ProtocolError('PROTO_TRUNCATED', 'short')
    expect(error).toBeInstanceOf(CodedError)
    expect(error.name).toBe('ProtocolError')
    expect(isProtocolError(error)).toBe(true)
    expect(isProtocolError(new ExampleError('EXAMPLE_ONE', 'other'))).toBe(false)
  })
})
