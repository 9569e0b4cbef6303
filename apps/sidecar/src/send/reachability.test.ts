import { SignalCliError, SignalRpcError, SignalUnavailableError } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../ops/logger.ts'
import { classifySendFailure, createReachability } from './reachability.ts'

describe('classifySendFailure', () => {
  it('tells a lost network, a daemon that is down, a rate limit and a definite refusal apart', () => {
    expect(
      classifySendFailure(
        new SignalRpcError(
          -32603,
          'Failed to send message: Closed unexpectedly (IOException) (UnexpectedErrorException)',
        ),
      ),
    ).toBe('network')
    expect(
      classifySendFailure(new SignalRpcError(-3, 'Unable to check if users are registered: x (IOException)')),
    ).toBe('network')
    expect(
      classifySendFailure(new SignalRpcError(-1, 'Failed to send message', undefined, { networkFailure: true })),
    ).toBe('network')
    expect(classifySendFailure(new SignalUnavailableError('connect ECONNREFUSED'))).toBe('daemon-down')
    expect(classifySendFailure(new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', 'not JSON'))).toBe('daemon-down')
    expect(classifySendFailure(new SignalRpcError(-5, 'Rate limit', 60))).toBe('rate-limited')
    expect(classifySendFailure(new SignalRpcError(-4, 'Untrusted identity'))).toBe('rejected')
    expect(classifySendFailure(new SignalRpcError(-1, 'Group not found: x'))).toBe('rejected')
  })
})

describe('reachability', () => {
  it('logs one line when Signal goes away and one when it returns, however many probes fail between', async () => {
    const lines: { level: number; msg: string }[] = []
    const logger = createLogger('debug', {
      write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
    })
    let t = 0
    const reach = createReachability({
      attempts: 3,
      probeBaseMs: 10,
      probeMaxMs: 1000,
      now: () => t,
      sleep: async (ms) => void (t += ms),
      rng: () => 0.5,
      logger,
    })
    reach.failed('network', false)
    expect([reach.state, reach.since]).toEqual(['unreachable', 0])
    const controller = new AbortController()
    for (let i = 0; i < 200; i++) {
      expect(await reach.turn(controller.signal)).toBe(true)
      reach.failed('network', true)
    }
    // The backoff reached its bound: 200 probes took at least 200 × 500 ms (least jittered delay).
    expect(t).toBeGreaterThanOrEqual(190 * 500)
    reach.succeeded()
    expect([reach.state, reach.since]).toEqual(['reachable', null])
    expect(lines.map((l) => l.msg)).toEqual([
      'Signal is unreachable (no network?); changes are kept and sent when it returns',
      'Signal is reachable again; sending what was kept',
    ])
  })

  it('gives the probe turn to one caller at a time; the others wait until it is settled', async () => {
    const sleeps: (() => void)[] = []
    const reach = createReachability({
      attempts: 1,
      probeBaseMs: 10,
      probeMaxMs: 10,
      now: () => 0,
      sleep: () => new Promise<void>((r) => sleeps.push(r)),
      rng: () => 0,
      logger: createLogger('silent'),
    })
    reach.failed('daemon-down', false)
    const signal = new AbortController().signal
    const got: string[] = []
    void reach.turn(signal).then(() => got.push('first'))
    void reach.turn(signal).then(() => got.push('second'))
    await new Promise((r) => setImmediate(r))
    expect(sleeps).toHaveLength(1) // one prober sleeping, the other waiting
    sleeps[0]?.()
    await new Promise((r) => setImmediate(r))
    expect(got).toEqual(['first'])
    reach.settled()
    await new Promise((r) => setImmediate(r))
    expect(sleeps).toHaveLength(2) // the turn passed on
    sleeps[1]?.()
    await new Promise((r) => setImmediate(r))
    expect(got).toEqual(['first', 'second'])
  })
})
