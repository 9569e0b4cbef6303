import { SignalCliError, SignalRpcError, SignalUnavailableError } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import { captureLogs } from '../ops/log-fixture.ts'
import { classifySendFailure } from './send-failure.ts'
import { reachOn } from './send-fixture.ts'

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
    const { logger, lines } = captureLogs('debug')
    let t = 0
    const reach = reachOn({ now: () => t, sleep: async (ms) => void (t += ms) }, { probeMaxMs: 1000, logger })
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
    const reach = reachOn(
      { now: () => 0, sleep: () => new Promise<void>((r) => sleeps.push(r)) },
      { attempts: 1, probeMaxMs: 10, rng: () => 0 },
    )
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

describe('classifySendFailure: what is not the daemon', () => {
  it('counts any other error, including other sidecar errors, as a definite refusal', () => {
    expect(classifySendFailure(new Error('unexpected'))).toBe('rejected')
    expect(classifySendFailure('a string')).toBe('rejected')
    expect(classifySendFailure(new SignalCliError('SIDECAR_SIGNAL_RPC_ERROR', 'not a transport failure'))).toBe(
      'rejected',
    )
  })
})

/** A reachability whose probe sleeps are recorded and released by hand. */
function handDriven() {
  const { logger, lines } = captureLogs('debug')
  const sleeps: { ms: number; wake: () => void }[] = []
  let t = 0
  const reach = reachOn(
    {
      now: () => t,
      sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
          sleeps.push({ ms, wake: resolve })
          signal.addEventListener('abort', () => resolve(), { once: true })
        }),
    },
    { probeBaseMs: 100, probeMaxMs: 10_000, rng: () => 1, logger },
  )
  return { reach, sleeps, lines, setNow: (ms: number) => void (t = ms) }
}

const tick = () => new Promise<void>((r) => setImmediate(r))

describe('reachability: turns', () => {
  it('lets a caller send at once while Signal is reachable, without a probe wait', async () => {
    const { reach, sleeps } = handDriven()
    expect(await reach.turn(new AbortController().signal)).toBe(true)
    expect(await reach.turn(new AbortController().signal)).toBe(true)
    expect(sleeps).toEqual([])
  })

  it('answers false to a caller whose signal aborted, reachable or not', async () => {
    const { reach } = handDriven()
    const aborted = AbortSignal.abort()
    expect(await reach.turn(aborted)).toBe(false)
    reach.failed('network', false)
    expect(await reach.turn(aborted)).toBe(false)
  })

  it('hands the turn on when its holder aborts during the probe wait', async () => {
    const { reach, sleeps } = handDriven()
    reach.failed('network', false)
    const first = new AbortController()
    const got: string[] = []
    void reach.turn(first.signal).then((ok) => got.push(`first ${ok}`))
    void reach.turn(new AbortController().signal).then((ok) => got.push(`second ${ok}`))
    await tick()
    expect(sleeps).toHaveLength(1)
    first.abort()
    await tick()
    expect(got).toEqual(['first false'])
    expect(sleeps).toHaveLength(2) // the second caller now holds the turn and waits its backoff
    sleeps[1]?.wake()
    await tick()
    expect(got).toEqual(['first false', 'second true'])
  })

  it('lets a caller waiting for the turn give up when its signal aborts', async () => {
    const { reach, sleeps } = handDriven()
    reach.failed('daemon-down', false)
    void reach.turn(new AbortController().signal)
    const waiting = new AbortController()
    let answer: boolean | undefined
    void reach.turn(waiting.signal).then((ok) => (answer = ok))
    await tick()
    expect(sleeps).toHaveLength(1)
    waiting.abort()
    await tick()
    expect(answer).toBe(false)
  })

  it('grows the probe backoff with failed probes only, not with the failures that made Signal away', async () => {
    const { reach, sleeps } = handDriven()
    for (let i = 0; i < 5; i++) reach.failed('network', false)
    const signal = new AbortController().signal
    const probe = async () => {
      const p = reach.turn(signal)
      await tick()
      sleeps.at(-1)?.wake()
      expect(await p).toBe(true)
    }
    await probe()
    reach.failed('network', true)
    await probe()
    reach.failed('network', true)
    await probe()
    // rng 1: the whole ceiling, base 100 ms doubling per failed probe.
    expect(sleeps.map((s) => s.ms)).toEqual([100, 200, 400])
  })

  it('stops telling a listener that unsubscribed', () => {
    const { reach } = handDriven()
    const seen: string[] = []
    const off = reach.onChange((s) => seen.push(s))
    reach.failed('network', false)
    off()
    reach.succeeded()
    expect(seen).toEqual(['unreachable'])
  })
})

describe('reachability: what it logs', () => {
  it('says which kind of absence began, notes a change of reason once, and counts the probes it took', async () => {
    const { reach, sleeps, lines, setNow } = handDriven()
    setNow(1000)
    reach.failed('daemon-down', false)
    setNow(2000)
    reach.failed('network', false)
    expect(reach.since).toBe(2000)
    const signal = new AbortController().signal
    for (let i = 0; i < 2; i++) {
      const p = reach.turn(signal)
      await tick()
      sleeps.at(-1)?.wake()
      await p
      reach.failed('network', true)
    }
    reach.succeeded()
    expect(lines.map(({ level, msg, state, was, probes }) => ({ level, msg, state, was, probes }))).toEqual([
      {
        level: 40,
        msg: 'signal-cli does not answer; changes are kept and sent when it returns',
        state: 'daemon-down',
        was: undefined,
        probes: undefined,
      },
      {
        level: 30,
        msg: 'Signal is still away, for another reason',
        state: 'unreachable',
        was: 'daemon-down',
        probes: undefined,
      },
      {
        level: 30,
        msg: 'Signal is reachable again; sending what was kept',
        state: undefined,
        was: 'unreachable',
        probes: 3,
      },
    ])
  })
})
