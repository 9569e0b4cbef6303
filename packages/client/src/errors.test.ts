import { describe, expect, test } from 'vitest'
import { ClientError } from './errors.ts'

describe('ClientError', () => {
  test('carries its name, code, message, cause and the remote code', () => {
    const cause = new Error('inner')
    const error = new ClientError('CLIENT_REJECTED', 'refused', { cause, remoteCode: 'PROTO_X' })
    expect(error).toMatchObject({
      name: 'ClientError',
      code: 'CLIENT_REJECTED',
      message: 'refused',
      remoteCode: 'PROTO_X',
    })
    expect(error.cause).toBe(cause)
    expect(new ClientError('CLIENT_CLOSED', 'closed').remoteCode).toBeUndefined()
  })
})
