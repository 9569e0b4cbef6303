import { describe, expect, test } from 'vitest'
import { readRemoteError } from './remote-error.ts'

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value))

describe('readRemoteError', () => {
  test("reads the sidecar's code and message", () => {
    expect(readRemoteError(json({ code: 'PROTO_TRUNCATED', message: 'cut short' }))).toEqual({
      remoteCode: 'PROTO_TRUNCATED',
      message: 'cut short',
    })
  })

  test('anything unreadable is a generic error: not JSON, not an object, null, fields not strings', () => {
    const generic = { remoteCode: 'UNKNOWN', message: 'the sidecar rejected a message' }
    expect(readRemoteError(new Uint8Array([0xff, 0x7b]))).toEqual(generic)
    expect(readRemoteError(json('SIDECAR_X'))).toEqual(generic)
    expect(readRemoteError(json(null))).toEqual(generic)
    expect(readRemoteError(json({ code: 7, message: ['x'] }))).toEqual(generic)
    expect(readRemoteError(json({ code: 'SIDECAR_X' }))).toEqual({ ...generic, remoteCode: 'SIDECAR_X' })
    expect(readRemoteError(json({ message: 'only this' }))).toEqual({ ...generic, message: 'only this' })
  })

  test('caps the code at 64 and the message at 500 characters (they end up in the UI)', () => {
    const { remoteCode, message } = readRemoteError(json({ code: 'C'.repeat(100), message: 'm'.repeat(900) }))
    expect(remoteCode).toBe('C'.repeat(64))
    expect(message).toBe('m'.repeat(500))
  })
})
