import { describe, expect, it } from 'vitest'
import { asRuntimeError, RuntimeError } from './errors.ts'

describe('runtime errors, told apart by code', () => {
  it('knows a runtime error by its code, from this copy of the package or another', () => {
    const own = new RuntimeError('DAEMON_PORT_TAKEN', 'port taken')
    expect(asRuntimeError(own)).toBe(own)
    const foreign = Object.assign(new Error('locked'), { code: 'DAEMON_CONFIG_LOCKED' })
    expect(asRuntimeError(foreign)?.code).toBe('DAEMON_CONFIG_LOCKED')
  })

  it('answers undefined for any other error or value', () => {
    for (const other of [new Error('plain'), Object.assign(new Error('io'), { code: 'ENOENT' }), null, 'DAEMON_EXITED'])
      expect(asRuntimeError(other)).toBeUndefined()
  })
})
