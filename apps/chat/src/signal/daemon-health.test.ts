import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { ChatError } from '../errors.ts'
import { backoffDelay, pause } from '../backoff.ts'
import { createDaemonHealth } from './daemon-health.ts'

describe('backoff', () => {
  it('is uniform in [d/2, d] with d doubling up to the cap', () => {
    expect(backoffDelay(0, { baseMs: 100, maxMs: 1000, rng: () => 0 })).toBe(50)
    expect(backoffDelay(2, { baseMs: 100, maxMs: 1000, rng: () => 0.999999 })).toBeCloseTo(400, 0)
    expect(backoffDelay(10, { baseMs: 100, maxMs: 1000, rng: () => 0.999999 })).toBeCloseTo(1000, 0)
  })
  it('pause resolves early when aborted, and at once when aborted already', async () => {
    const abort = new AbortController()
    const waiting = pause(60_000, abort.signal)
    abort.abort()
    await waiting
    await pause(60_000, abort.signal)
  })
  it('pause leaves no listener on the signal once its time is up', async () => {
    const life = new AbortController()
    await pause(1, life.signal)
    await pause(1, life.signal)
    expect(getEventListeners(life.signal, 'abort')).toHaveLength(0)
    await pause(1)
  })
})

const unavailable = () => new ChatError('CHAT_DAEMON_UNAVAILABLE', 'down')

describe('daemon health', () => {
  it('retries an unreachable daemon and resets the count on success', async () => {
    const retries: Array<[string, number]> = []
    const health = createDaemonHealth({ budget: 2, baseMs: 1, maxMs: 2, onRetry: (w, a) => retries.push([w, a]) })
    let calls = 0
    const value = await health.call('send', async () => {
      calls++
      if (calls < 3) throw unavailable()
      return 'ok'
    })
    expect(value).toBe('ok')
    expect(retries).toEqual([
      ['send', 1],
      ['send', 2],
    ])
    expect(health.consecutiveFailures).toBe(0)
  })
  it('waits the backoff of the attempt that failed: the first within the base delay, doubling after', () => {
    const delays: number[] = []
    const health = createDaemonHealth({
      budget: 5,
      baseMs: 100,
      maxMs: 100_000,
      onRetry: (_what, _attempt, delayMs) => delays.push(delayMs),
    })
    const returned = [health.failed('x'), health.failed('x'), health.failed('x')]
    expect(returned).toEqual(delays)
    expect(delays[0]).toBeGreaterThanOrEqual(50)
    expect(delays[0]).toBeLessThanOrEqual(100)
    expect(delays[1]).toBeGreaterThanOrEqual(100)
    expect(delays[1]).toBeLessThanOrEqual(200)
    expect(delays[2]).toBeGreaterThanOrEqual(200)
    expect(delays[2]).toBeLessThanOrEqual(400)
  })
  it('gives up with CHAT_DAEMON_LOST once the budget is spent', async () => {
    const health = createDaemonHealth({ budget: 2, baseMs: 1, maxMs: 2 })
    let calls = 0
    const lost = await health
      .call('listGroups', async () => {
        calls++
        throw unavailable()
      })
      .catch((e: unknown) => e)
    expect(lost).toBeInstanceOf(ChatError)
    expect((lost as ChatError).code).toBe('CHAT_DAEMON_LOST')
    expect((lost as ChatError).message).toBe('signal-cli daemon not restored after 2 attempts (last: listGroups)')
    expect(calls).toBe(3)
  })
  it('passes other errors through at once, and stops retrying when aborted', async () => {
    const health = createDaemonHealth({ budget: 5, baseMs: 1, maxMs: 2 })
    const rpc = new ChatError('CHAT_RPC', 'no')
    let calls = 0
    await expect(
      health.call('send', async () => {
        calls++
        throw rpc
      }),
    ).rejects.toBe(rpc)
    expect(calls).toBe(1)
    expect(health.consecutiveFailures).toBe(0)
    const abort = new AbortController()
    const down = unavailable()
    await expect(
      health.call(
        'send',
        async () => {
          abort.abort()
          throw down
        },
        abort.signal,
      ),
    ).rejects.toBe(down)
    expect(health.consecutiveFailures).toBe(0)
    // Aborted during the pause before a retry: the call is not tried again.
    const slow = new AbortController()
    let tries = 0
    // A pause of 30 s or more, ended by the abort.
    const patient = createDaemonHealth({ budget: 5, baseMs: 60_000, maxMs: 60_000 })
    const pending = patient.call(
      'send',
      async () => {
        tries++
        throw unavailable()
      },
      slow.signal,
    )
    await new Promise<void>((r) => setImmediate(r))
    slow.abort()
    await expect(pending).rejects.toMatchObject({ code: 'CHAT_DAEMON_UNAVAILABLE' })
    expect(tries).toBe(1)
  })
})
