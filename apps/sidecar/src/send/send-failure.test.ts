import { describe, expect, it } from 'vitest'
import { classifySendFailure, rpcFacts } from './send-failure.ts'

/** An error shaped like the daemon client's, as a second copy of that package would throw it. */
const foreign = (fields: Record<string, unknown>): Error => Object.assign(new Error('from another copy'), fields)

describe('send failures read by code, not by class', () => {
  it('classifies a daemon error of another package copy by its code and fields', () => {
    const rpc = (rpcCode: number, extra: Record<string, unknown> = {}) =>
      foreign({ code: 'SIDECAR_SIGNAL_RPC_ERROR', rpcCode, ...extra })
    expect(classifySendFailure(rpc(-5, { retryAfterSeconds: 30 }))).toBe('rate-limited')
    expect(classifySendFailure(rpc(-3))).toBe('network')
    expect(classifySendFailure(rpc(-1, { networkFailure: true }))).toBe('network')
    expect(classifySendFailure(rpc(-4))).toBe('rejected')
    expect(classifySendFailure(foreign({ code: 'SIDECAR_SIGNAL_UNAVAILABLE' }))).toBe('daemon-down')
    expect(classifySendFailure(foreign({ code: 'SIDECAR_SIGNAL_BAD_RESPONSE' }))).toBe('daemon-down')
  })

  it('takes the pause and the JSON-RPC code only from a well-formed rpc error', () => {
    expect(rpcFacts(foreign({ code: 'SIDECAR_SIGNAL_RPC_ERROR', rpcCode: -5, retryAfterSeconds: 12 }))).toEqual({
      rpcCode: -5,
      retryAfterSeconds: 12,
      networkFailure: false,
    })
    // A pause that is not a number is no pause; a code that is not a number is no rpc error.
    expect(rpcFacts(foreign({ code: 'SIDECAR_SIGNAL_RPC_ERROR', rpcCode: -5, retryAfterSeconds: '12' }))).toEqual({
      rpcCode: -5,
      retryAfterSeconds: undefined,
      networkFailure: false,
    })
    expect(rpcFacts(foreign({ code: 'SIDECAR_SIGNAL_RPC_ERROR', rpcCode: '-5' }))).toBeUndefined()
    expect(rpcFacts(foreign({ code: 'SIDECAR_SIGNAL_UNAVAILABLE', rpcCode: -5 }))).toBeUndefined()
    expect(rpcFacts(null)).toBeUndefined()
  })
})
