import { describe, expect, it } from 'vitest'
import {
  asSignalCliFailure,
  BroadcastRecoveryRequiredError,
  SignalCliError,
  SignalEventsRefusedError,
  SignalRpcError,
  SignalUnavailableError,
} from './errors.ts'

describe('the daemon client errors, told apart by code', () => {
  it('knows each class by its code and keeps its fields', () => {
    const rpc = asSignalCliFailure(new SignalRpcError(-5, 'rate limited', 30))
    expect(rpc?.code).toBe('SIDECAR_SIGNAL_RPC_ERROR')
    if (rpc?.code !== 'SIDECAR_SIGNAL_RPC_ERROR') throw new Error('narrowed by code')
    expect([rpc.rpcCode, rpc.retryAfterSeconds]).toEqual([-5, 30])
    const refused = asSignalCliFailure(new SignalEventsRefusedError(400, 'no such account'))
    expect(refused?.code === 'SIDECAR_EVENTS_FAILED' && refused.status).toBe(400)
    expect(asSignalCliFailure(new SignalUnavailableError('down'))?.code).toBe('SIDECAR_SIGNAL_UNAVAILABLE')
    expect(asSignalCliFailure(new BroadcastRecoveryRequiredError(['g'], 'lost'))?.code).toBe(
      'SIDECAR_BROADCAST_RECOVERY_REQUIRED',
    )
    expect(asSignalCliFailure(new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', 'bad'))?.code).toBe(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
    )
  })

  it('knows an error of another copy of the package by its code alone', () => {
    const foreign = Object.assign(new Error('refused'), { code: 'SIDECAR_SIGNAL_RPC_ERROR', rpcCode: -1 })
    expect(foreign instanceof SignalCliError).toBe(false)
    expect(asSignalCliFailure(foreign)).toBe(foreign)
  })

  it('answers undefined for anything else', () => {
    for (const other of [
      new Error('plain'),
      Object.assign(new Error('undici'), { code: 'UND_ERR_SOCKET' }),
      null,
      undefined,
      'SIDECAR_SIGNAL_RPC_ERROR',
      42,
    ])
      expect(asSignalCliFailure(other)).toBeUndefined()
  })
})
