// The delivery rule, one module: a body goes out only right after a membership check passed;
// whatever stands in the way withholds the rest and is retried; nothing is skipped.
import { SignalRpcError } from '@e2e-col/signal-cli'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatError } from '../errors.ts'
import type { ChatSignal, GroupMembership } from '../signal/port.ts'
import { createDaemonHealth } from '../signal/daemon-health.ts'
import { createPoster, dataUri, type PosterOptions } from './poster.ts'

const LOOP = '+15550000001'
const OPERATOR = '+15550000002'
const member = (number: string | null) => ({ number, uuid: null })
const clean: GroupMembership = {
  isMember: true,
  members: [member(LOOP), member(OPERATOR)],
  pendingMembers: [],
  requestingMembers: [],
}
const withStranger: GroupMembership = { ...clean, requestingMembers: [member('+15550000003')] }

/** A fake daemon: answers checks from `membership()`, fails the calls `fail` says, records sends. */
function fakeSignal(o: { membership?: () => GroupMembership | undefined; fail?: (method: string) => unknown } = {}) {
  const calls: string[] = []
  const sends: Array<{ text: string; attachments: readonly string[] | undefined }> = []
  let next = 1000
  const signal = {
    async groupMembership() {
      calls.push('check')
      const err = o.fail?.('listGroups')
      if (err !== undefined) throw err
      return (o.membership ?? (() => clean))()
    },
    async sendGroup(_group: string, text: string, attachments?: readonly string[]) {
      calls.push('send')
      const err = o.fail?.('send')
      if (err !== undefined) throw err
      sends.push({ text, attachments })
      return next++
    },
  } as unknown as ChatSignal
  return { signal, calls, sends }
}

function poster(signal: ChatSignal, extra: Partial<PosterOptions> = {}) {
  const logs: string[] = []
  const withheld: Array<[string, number]> = []
  const posted: Array<[string, number, string | undefined]> = []
  const p = createPoster({
    signal,
    groupId: 'g',
    allowed: new Set([LOOP, OPERATOR]),
    health: createDaemonHealth({ budget: 3, baseMs: 1, maxMs: 2 }),
    membershipBaseMs: 1,
    membershipMaxMs: 2,
    paceBurst: 100,
    paceMs: 1,
    log: (l) => logs.push(l),
    onWithheld: async (reason, remaining) => void withheld.push([reason, remaining]),
    onPosted: async (text, ts, file) => void posted.push([text, ts, file]),
    ...extra,
  })
  return { p, logs, withheld, posted }
}

const never = new AbortController().signal
const long = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
const ticks = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r))
}

describe('posting', () => {
  it('checks membership right before each body, posts them in order, and remembers their timestamps', async () => {
    const f = fakeSignal()
    const { p, posted } = poster(f.signal)
    const parts: Array<[number, number]> = []
    const result = await p.post(long(400), never, { progress: { onPart: (n, total) => parts.push([n, total]) } })
    expect(result).toEqual({ kind: 'posted', total: 2 })
    expect(f.calls).toEqual(['check', 'send', 'check', 'send'])
    expect(f.sends.map((s) => s.text.slice(0, 6))).toEqual(['(1/2)\n', '(2/2)\n'])
    expect(parts).toEqual([
      [1, 2],
      [2, 2],
    ])
    expect(posted.map(([, ts]) => ts)).toEqual([1000, 1001])
    expect(posted[0]?.[0]).toBe(f.sends[0]?.text)
    expect(p.isOwnPost(1000) && p.isOwnPost(1001)).toBe(true)
    expect(p.isOwnPost(1002)).toBe(false)
    expect(p.lastCheck()?.ok).toBe(true)
  })

  it('says in the first body how many follow, only when asked and only when there are more', async () => {
    const f = fakeSignal()
    const { p } = poster(f.signal)
    await p.post(long(400), never, { lead: true })
    await p.post(long(400), never)
    await p.post('short', never, { lead: true })
    expect(f.sends.map((s) => s.text.split('\n').slice(0, 2).join('|'))).toEqual([
      '(1/2)|1 more part(s) follow; send cancel to stop them.',
      '(2/2)|line 229',
      '(1/2)|line 1',
      '(2/2)|line 234',
      'short',
    ])
  })

  it('withholds while a stranger is in the group, says so, and posts once they are gone', async () => {
    let checks = 0
    const f = fakeSignal({ membership: () => (++checks <= 2 ? withStranger : clean) })
    const { p, logs, withheld } = poster(f.signal)
    const held: Array<[string, number, number]> = []
    const result = await p.post('hello', never, { progress: { onHeld: (r, n, t) => held.push([r, n, t]) } })
    expect(result).toEqual({ kind: 'posted', total: 1 })
    expect(f.calls).toEqual(['check', 'check', 'check', 'send'])
    expect(withheld).toEqual([
      ['stranger', 1],
      ['stranger', 1],
    ])
    expect(held).toEqual([
      ['stranger', 0, 1],
      ['stranger', 0, 1],
    ])
    expect(logs[0]).toMatch(/^membership check failed \(stranger\): withholding 1 message\(s\); trying again in \d+s$/)
  })

  it('records a failed check for status', async () => {
    const f = fakeSignal({ membership: () => withStranger })
    const { p } = poster(f.signal)
    const abort = new AbortController()
    const posting = p.post('x', abort.signal)
    await ticks()
    expect(p.lastCheck()?.ok).toBe(false)
    abort.abort()
    expect(await posting).toEqual({ kind: 'aborted', posted: 0, total: 1 })
  })

  it('retries a JSON-RPC error on the check or the send, naming its code and the step', async () => {
    const errors: Record<string, unknown[]> = {
      listGroups: [new ChatError('CHAT_RPC', 'list failed', { cause: new SignalRpcError(-1, 'Failed') })],
      send: [
        new ChatError('CHAT_RPC', 'rate', { cause: new SignalRpcError(-5, 'Rate limit', 0) }),
        new ChatError('CHAT_RPC', 'no cause'),
      ],
    }
    const f = fakeSignal({ fail: (m) => errors[m]?.shift() })
    const { p, withheld, logs } = poster(f.signal)
    expect(await p.post('hello', never)).toEqual({ kind: 'posted', total: 1 })
    expect(withheld.map(([r]) => r)).toEqual([
      'daemon error -1 on listGroups',
      'daemon error -5 on send',
      'daemon error on send',
    ])
    expect(logs[0]).toMatch(/^daemon error -1 on listGroups \(list failed\): withholding 1 message\(s\)/)
    expect(f.sends.map((s) => s.text)).toEqual(['hello'])
  })

  it('waits out a rate limit for at least the pause the daemon asks for', async () => {
    const errors = [new ChatError('CHAT_RPC', 'rate', { cause: new SignalRpcError(-5, 'Rate limit', 3600) })]
    const f = fakeSignal({ fail: (m) => (m === 'send' ? errors.shift() : undefined) })
    const { p, logs } = poster(f.signal)
    const abort = new AbortController()
    const posting = p.post('hello', abort.signal)
    await ticks()
    expect(logs).toEqual([expect.stringMatching(/trying again in 1h00m$/)])
    abort.abort()
    expect(await posting).toEqual({ kind: 'aborted', posted: 0, total: 1 })
  })

  it('throws a lost daemon at once instead of withholding', async () => {
    const f = fakeSignal({
      fail: (m) => (m === 'send' ? new ChatError('CHAT_DAEMON_UNAVAILABLE', 'connection refused') : undefined),
    })
    const { p, withheld } = poster(f.signal, { health: createDaemonHealth({ budget: 0, baseMs: 1, maxMs: 1 }) })
    await expect(p.post('hello', never)).rejects.toMatchObject({ code: 'CHAT_DAEMON_LOST' })
    expect(withheld).toEqual([])
  })

  it('throws what is not a daemon answer worth waiting out', async () => {
    const boom = new Error('bug')
    const f = fakeSignal({ fail: (m) => (m === 'send' ? boom : undefined) })
    const { p } = poster(f.signal)
    await expect(p.post('hello', never)).rejects.toBe(boom)
  })

  it('gives up a reply that makes no progress for stallMs, with how far it got and why', async () => {
    let checks = 0
    const f = fakeSignal({ membership: () => (++checks <= 1 ? clean : withStranger) })
    const { p } = poster(f.signal)
    const result = await p.post(long(400), never, { stallMs: 30 })
    expect(result).toEqual({ kind: 'stalled', posted: 1, total: 2, reason: 'stranger' })
    expect(f.sends).toHaveLength(1)
  })

  it('stops when aborted, before the first body or between bodies', async () => {
    const f = fakeSignal()
    const { p } = poster(f.signal)
    const aborted = new AbortController()
    aborted.abort()
    expect(await p.post('x', aborted.signal)).toEqual({ kind: 'aborted', posted: 0, total: 1 })
    expect(f.calls).toEqual([])
    const mid = new AbortController()
    const g = fakeSignal()
    const { p: p2 } = poster(g.signal, { onPosted: async () => mid.abort() })
    expect(await p2.post(long(400), mid.signal)).toEqual({ kind: 'aborted', posted: 1, total: 2 })
    expect(g.sends).toHaveLength(1)
  })

  it('paces the bodies after the first paceBurst ones', async () => {
    const f = fakeSignal()
    const { p } = poster(f.signal, { paceBurst: 2, paceMs: 3_600_000 })
    const abort = new AbortController()
    const posting = p.post(long(1200), abort.signal)
    await ticks(50)
    expect(f.sends.map((s) => s.text.slice(0, 4))).toEqual(['(1/6', '(2/6'])
    expect(f.calls).toEqual(['check', 'send', 'check', 'send'])
    abort.abort()
    expect(await posting).toMatchObject({ kind: 'aborted', posted: 2 })
  })

  it('sends a file as a data URI with its name, on one body, by the same rule', async () => {
    const f = fakeSignal()
    const { p, posted } = poster(f.signal)
    const file = { name: 'turn 3 output.txt', contentType: 'text/plain', data: new TextEncoder().encode('héllo') }
    expect(await p.postFile('caption', file, never)).toEqual({ kind: 'posted', total: 1 })
    expect(f.calls).toEqual(['check', 'send'])
    expect(f.sends).toEqual([{ text: 'caption', attachments: [dataUri(file)] }])
    expect(dataUri(file)).toBe(
      `data:text/plain;filename=turn%203%20output.txt;base64,${Buffer.from('héllo').toString('base64')}`,
    )
    expect(posted).toEqual([['caption', 1000, 'turn 3 output.txt']])
  })

  it('settles once every send in flight has its timestamp', async () => {
    let release: (() => void) | undefined
    const f = fakeSignal()
    const slow = {
      ...f.signal,
      sendGroup: async (g: string, t: string) => {
        await new Promise<void>((r) => (release = r))
        return f.signal.sendGroup(g, t)
      },
    } as ChatSignal
    const { p } = poster(slow)
    await p.settled()
    const posting = p.post('x', never)
    await ticks()
    let settled = false
    const s = p.settled().then(() => (settled = true))
    await ticks()
    expect(settled).toBe(false)
    release?.()
    await s
    expect(p.isOwnPost(1000)).toBe(true)
    await posting
  })
})

const unavailable = () => new ChatError('CHAT_DAEMON_UNAVAILABLE', 'connection refused')
/** `fail` for fakeSignal: each method's errors from its own list, in order, then success. */
const failing = (errors: Record<string, unknown[]>) => (method: string) => errors[method]?.shift()
/** Checks that take `ms` each (on the timers in use), recorded when they start. */
function slowChecks(f: ReturnType<typeof fakeSignal>, ms: number): ChatSignal {
  return {
    ...f.signal,
    groupMembership: async (g: string) => {
      const answer = f.signal.groupMembership(g)
      await new Promise((r) => setTimeout(r, ms))
      return answer
    },
  } as ChatSignal
}

describe('posting: what the daemon health, the log and the caller are told', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  it('tells the daemon health which call it is retrying: the check, then the send', async () => {
    const f = fakeSignal({ fail: failing({ listGroups: [unavailable()], send: [unavailable()] }) })
    const retried: string[] = []
    const health = createDaemonHealth({ budget: 3, baseMs: 1, maxMs: 1, onRetry: (what) => retried.push(what) })
    const { p } = poster(f.signal, { health })
    expect(await p.post('hello', never)).toEqual({ kind: 'posted', total: 1 })
    expect(retried).toEqual(['listGroups', 'send'])
    expect(f.calls).toEqual(['check', 'check', 'send', 'send'])
  })

  it('has nothing in flight once its sends are done, delivered or failed', async () => {
    const f = fakeSignal({ fail: failing({ send: [new ChatError('CHAT_RPC', 'rate')] }) })
    const { p } = poster(f.signal)
    expect(await p.post('hello', never)).toEqual({ kind: 'posted', total: 1 })
    // Nothing left to wait for: settled() answers before the next queued microtask runs.
    const order: string[] = []
    const settled = p.settled().then(() => order.push('settled'))
    await Promise.resolve().then(() => order.push('next microtask'))
    await settled
    expect(order).toEqual(['settled', 'next microtask'])
  })

  it('reports a post aborted during its pause as aborted, even once past stallMs', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const abort = new AbortController()
    const f = fakeSignal({ membership: () => withStranger })
    const { p } = poster(f.signal, {
      onWithheld: async () => {
        vi.setSystemTime(Date.now() + 60_000)
        abort.abort()
      },
    })
    expect(await p.post('x', abort.signal, { stallMs: 30 })).toEqual({ kind: 'aborted', posted: 0, total: 1 })
    expect(f.calls).toEqual(['check'])
  })

  it('reports a call that fails once aborted as aborted, neither retried nor thrown', async () => {
    for (const err of [new ChatError('CHAT_RPC', 'cancelled'), new Error('socket closed')]) {
      const abort = new AbortController()
      const f = fakeSignal({
        fail: (m) => {
          if (m !== 'send') return undefined
          abort.abort()
          return err
        },
      })
      const { p, logs, withheld } = poster(f.signal)
      expect(await p.post('hello', abort.signal)).toEqual({ kind: 'aborted', posted: 0, total: 1 })
      expect({ logs, withheld, calls: f.calls }).toEqual({ logs: [], withheld: [], calls: ['check', 'send'] })
    }
  })

  it('gives up with no reason when stallMs ran out after a body with nothing standing in the way', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const f = fakeSignal()
    const { p } = poster(f.signal, { onPosted: async () => void vi.setSystemTime(Date.now() + 60_000) })
    expect(await p.post(long(400), never, { stallMs: 30 })).toEqual({
      kind: 'stalled',
      posted: 1,
      total: 2,
      reason: '',
    })
    expect(f.calls).toEqual(['check', 'send'])
  })

  it('gives up only once more than stallMs has passed without progress', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const start = Date.now()
    const f = fakeSignal({ membership: () => withStranger })
    const { p, withheld } = poster(f.signal, {
      // The clock stands still between these steps: exactly stallMs after the start, then one past it.
      onWithheld: async (reason, left) => {
        withheld.push([reason, left])
        vi.setSystemTime(start + 999 + withheld.length)
      },
    })
    const result = await p.post('x', never, { stallMs: 1000 })
    expect(result).toEqual({ kind: 'stalled', posted: 0, total: 1, reason: 'stranger' })
    expect(f.calls).toEqual(['check', 'check'])
  })

  it('ends its last pause one millisecond past stallMs, however long the backoff', async () => {
    vi.useFakeTimers()
    const f = fakeSignal({ membership: () => withStranger })
    const { p } = poster(slowChecks(f, 4000), { membershipBaseMs: 3_600_000, membershipMaxMs: 3_600_000 })
    let result: unknown
    void p.post('x', never, { stallMs: 10_000 }).then((r) => (result = r))
    // The check fails at 4 s; the pause after it lasts what is left of the 10 s, plus 1 ms.
    await vi.advanceTimersByTimeAsync(10_000)
    expect({ result, calls: f.calls }).toEqual({ result: undefined, calls: ['check'] })
    await vi.advanceTimersByTimeAsync(1)
    expect({ result, calls: f.calls }).toEqual({
      result: { kind: 'stalled', posted: 0, total: 1, reason: 'stranger' },
      calls: ['check'],
    })
  })

  it('paces a body once, not again on each retry of it', async () => {
    vi.useFakeTimers()
    let checks = 0
    const f = fakeSignal({ membership: () => (++checks === 2 ? withStranger : clean) })
    const { p } = poster(f.signal, { paceBurst: 1, paceMs: 3_600_000, membershipBaseMs: 1000, membershipMaxMs: 1000 })
    const posting = p.post(long(400), never)
    await vi.advanceTimersByTimeAsync(0)
    expect(f.calls).toEqual(['check', 'send'])
    await vi.advanceTimersByTimeAsync(3_600_000)
    expect(f.calls).toEqual(['check', 'send', 'check'])
    await vi.advanceTimersByTimeAsync(1000)
    expect(f.calls).toEqual(['check', 'send', 'check', 'check', 'send'])
    expect(await posting).toEqual({ kind: 'posted', total: 2 })
  })

  it('doubles the pause between retries of one body', async () => {
    vi.useFakeTimers()
    vi.spyOn(Math, 'random').mockReturnValue(0.5)
    let checks = 0
    const f = fakeSignal({ membership: () => (++checks <= 4 ? withStranger : clean) })
    const { p, logs } = poster(f.signal, { membershipBaseMs: 8000, membershipMaxMs: 1_000_000 })
    const posting = p.post('x', never)
    await vi.runAllTimersAsync()
    expect(await posting).toEqual({ kind: 'posted', total: 1 })
    expect(logs.map((l) => l.replace(/^.*trying again in /, ''))).toEqual(['6s', '12s', '24s', '48s'])
  })

  it('withholds only the bodies not yet posted, with progress that has no onHeld', async () => {
    let checks = 0
    const f = fakeSignal({ membership: () => (++checks === 2 ? withStranger : clean) })
    const { p, logs, withheld } = poster(f.signal)
    const parts: number[] = []
    const result = await p.post(long(400), never, { progress: { onPart: (n) => parts.push(n) } })
    expect(result).toEqual({ kind: 'posted', total: 2 })
    expect(parts).toEqual([1, 2])
    expect(withheld).toEqual([['stranger', 1]])
    expect(logs).toEqual([expect.stringMatching(/: withholding 1 message\(s\);/)])
  })
})
