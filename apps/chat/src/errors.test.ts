import { describe, expect, it } from 'vitest'
import { asChatError, ChatError, exitCodeOf } from './errors.ts'
import { EXIT_CODES } from './exit-codes.ts'

describe('chat errors, told apart by code', () => {
  it('maps an error to its exit code by its code alone, whichever copy of the package made it', () => {
    expect(exitCodeOf(new ChatError('CHAT_DAEMON_LOST', 'gone'))).toBe(EXIT_CODES.daemonLost)
    const foreign = Object.assign(new Error('refused'), { code: 'CHAT_REMOTE_ENDPOINT' })
    expect(foreign instanceof ChatError).toBe(false)
    expect([asChatError(foreign)?.code, exitCodeOf(foreign)]).toEqual([
      'CHAT_REMOTE_ENDPOINT',
      EXIT_CODES.remoteEndpointRefused,
    ])
  })
  it('answers undefined for other errors, and maps them to the setup exit code', () => {
    for (const other of [new Error('x'), Object.assign(new Error('io'), { code: 'ENOENT' }), null, 'CHAT_STATE']) {
      expect(asChatError(other)).toBeUndefined()
      expect(exitCodeOf(other)).toBe(EXIT_CODES.setup)
    }
    // A name on the prototype chain is not a code.
    expect(asChatError(Object.assign(new Error('proto'), { code: 'toString' }))).toBeUndefined()
  })
})
