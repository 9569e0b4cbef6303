import { describe, expect, it } from 'vitest'
import { asCliError, CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'

describe('cli errors, told apart by code', () => {
  it('knows a CliError by its code and keeps its hint and exit code', () => {
    const own = new CliError('CLI_NOT_SET_UP', EXIT.notSetUp, 'not set up', 'run e2e-col setup')
    expect(asCliError(own)).toBe(own)
    const foreign = Object.assign(new Error('locked'), { code: 'CLI_PIN_LOCKED', hint: 'pin', exitCode: 7 })
    expect(asCliError(foreign)?.hint).toBe('pin')
  })
  it('answers undefined for any other error or value', () => {
    for (const other of [
      new Error('x'),
      Object.assign(new Error('rpc'), { code: 'SIDECAR_SIGNAL_RPC_ERROR' }),
      undefined,
    ])
      expect(asCliError(other)).toBeUndefined()
  })
})
