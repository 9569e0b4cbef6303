// Delivering one turn's report by the guarantee: ✅/❌ only once the whole report is in; a reply
// given up or cut short by the chat's end is saved and the group told.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChatConfig } from '../config.ts'
import { createRedactor } from '../redact/redactor.ts'
import { chatState, recordingAudit, SECRET } from './loop-fixture.ts'
import type { Queued } from './origin.ts'
import type { PostOptions, PostResult } from './poster.ts'
import { createReplyDelivery, type TurnPhase } from './reply-delivery.ts'
import type { Speaker } from './speaker.ts'

const redactor = createRedactor({ env: { DEPLOY_TOKEN: SECRET } })
let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

function setup(results: PostResult[], o: { lifeAborted?: boolean; throwOnSay?: Error; reactFails?: Error } = {}) {
  dir = mkdtempSync(join(tmpdir(), 'e2e-col-delivery-'))
  const said: Array<{ text: string; turn: number | undefined; options: PostOptions | undefined; abort: AbortSignal }> =
    []
  const receipts: Array<[number, string]> = []
  const reactions: Array<[number, string]> = []
  const logs: string[] = []
  const errors: Array<[string, unknown]> = []
  const life = new AbortController()
  if (o.lifeAborted === true) life.abort()
  const speaker = {
    say: async (text: string, abort: AbortSignal, turn?: number, options?: PostOptions) => {
      said.push({ text, turn, options, abort })
      if (o.throwOnSay !== undefined) throw o.throwOnSay
      return results.shift() ?? { kind: 'posted', total: 1 }
    },
    setReceipt: async (item: Queued, to: string) => void receipts.push([item.timestamp, to]),
    react: async (target: { timestamp: number }, to: string) => {
      if (o.reactFails !== undefined) throw o.reactFails
      reactions.push([target.timestamp, to])
    },
  } as unknown as Speaker
  const state = chatState({ turns: 2, sessionStarted: true })
  const audit = recordingAudit()
  const delivery = createReplyDelivery({
    config: { stateRoot: dir, host: 'box', deliveryTimeoutMs: 60_000 } as ChatConfig,
    state,
    speaker,
    redactor,
    audit: audit.log,
    life: life.signal,
    log: (l) => logs.push(l),
    onError: (what, err) => void errors.push([what, err]),
  })
  return { delivery, said, receipts, reactions, audit: audit.entries, logs, errors, state, life }
}

const item = (): Queued => ({
  text: 'p',
  author: '+15550000002',
  timestamp: 77,
  origin: { kind: 'signal', author: '+15550000002', timestamp: 77, device: 1 },
  receipt: 'running',
})
const never = new AbortController().signal

describe('delivering a report', () => {
  it('posts it redacted, as a reply with a lead, then sets the receipt and records the outcome', async () => {
    const s = setup([{ kind: 'posted', total: 3 }])
    const phases: TurnPhase[] = []
    await s.delivery.deliver(item(), 3, `out ${SECRET}`, 'done', never, (p) => phases.push(p))
    expect(s.said).toHaveLength(1)
    expect(s.said[0]).toMatchObject({ text: 'out [REDACTED:env]', turn: 3, abort: never })
    expect(s.said[0]?.options).toMatchObject({ stallMs: 60_000, lead: true })
    s.said[0]?.options?.progress?.onPart?.(1, 3)
    s.said[0]?.options?.progress?.onHeld?.('stranger', 1, 3)
    expect(phases).toEqual([
      { kind: 'posting', posted: 0, total: 0 },
      { kind: 'posting', posted: 1, total: 3 },
      { kind: 'held', reason: 'stranger', posted: 1, total: 3 },
    ])
    expect(s.receipts).toEqual([[77, 'done']])
    expect(s.audit).toEqual([
      expect.objectContaining({ event: 'turn', turn: 3, outcome: 'done', sender: '+15550000002', signalTimestamp: 77 }),
    ])
  })

  it('posts a cancelled turn’s notice even though the cancel fired', async () => {
    const s = setup([])
    const cancelled = new AbortController()
    cancelled.abort()
    await s.delivery.deliver(item(), 3, 'turn 3 cancelled', 'cancelled', cancelled.signal, () => {})
    expect(s.said[0]?.abort.aborted).toBe(false)
    expect(s.receipts).toEqual([[77, 'cancelled']])
  })

  it('stops the rest on cancel, says how far it got, and marks the message cancelled', async () => {
    const s = setup([{ kind: 'aborted', posted: 2, total: 5 }])
    await s.delivery.deliver(item(), 3, 'long', 'done', never, () => {})
    expect(s.said.map((x) => x.text)).toEqual([
      'long',
      'turn 3: the rest of the reply is cancelled (2 of 5 part(s) posted).',
    ])
    expect(s.receipts).toEqual([[77, 'cancelled']])
    expect(s.audit.map((e) => e.outcome)).toEqual(['reply cancelled after 2 of 5 part(s)'])
  })

  it('saves a reply the chat stops on, for the next start, without telling the group now', async () => {
    const s = setup([{ kind: 'aborted', posted: 1, total: 4 }], { lifeAborted: true })
    await s.delivery.deliver(item(), 3, `long ${SECRET}`, 'done', never, () => {})
    expect(s.said).toHaveLength(1)
    const u = s.state.undelivered?.[0]
    expect(u).toMatchObject({
      turn: 3,
      posted: 1,
      total: 4,
      why: 'the chat stopped while it was posted',
      target: { author: '+15550000002', timestamp: 77 },
    })
    expect(readFileSync(u?.file as string, 'utf8')).toBe('long [REDACTED:env]')
    expect(s.receipts).toEqual([])
    expect(s.audit.map((e) => e.outcome)).toEqual(['undelivered: the chat stopped'])
  })

  it('gives up a stalled reply: saves it, records it, tells the group and marks the message ❌', async () => {
    const s = setup([
      { kind: 'stalled', posted: 0, total: 2, reason: 'stranger' },
      { kind: 'posted', total: 1 },
    ])
    await s.delivery.deliver(item(), 3, 'reply', 'done', never, () => {})
    expect(s.said[1]?.text).toMatch(
      /^turn 3: the reply could not be delivered \(0 of 2 part\(s\) posted; nothing could be posted for 1m00s: stranger\)\. It is saved on box in \S+\.turn-3\.reply\.txt\.$/,
    )
    expect(s.said[1]?.turn).toBe(3)
    expect(s.receipts).toEqual([[77, 'failed']])
    expect(s.audit.map((e) => e.outcome)).toEqual(['undelivered: stranger'])
    expect(s.state.undelivered).toBeUndefined()
    expect(s.logs[0]).toMatch(/^turn 3: reply not delivered \(nothing could be posted for 1m00s: stranger\); saved in /)
  })

  it('saves what it holds when the daemon is lost, and throws on', async () => {
    const lost = new Error('lost')
    const s = setup([], { throwOnSay: lost })
    await expect(s.delivery.deliver(item(), 3, 'r', 'done', never, () => {})).rejects.toBe(lost)
    expect(s.state.undelivered?.[0]).toMatchObject({ turn: 3, posted: 0, total: 0, why: 'the daemon was lost' })
    expect(existsSync(s.state.undelivered?.[0]?.file as string)).toBe(true)
  })

  it('tells the group, oldest first, about replies an earlier run could not deliver, and reacts ❌ on them', async () => {
    const s = setup([
      { kind: 'posted', total: 1 },
      { kind: 'stalled', posted: 0, total: 1, reason: 'x' },
    ])
    s.state.undelivered = [
      { turn: 1, file: '/f1', posted: 0, total: 2, why: 'w1', target: { author: '+15550000002', timestamp: 5 } },
      { turn: 2, file: '/f2', posted: 1, total: 2, why: 'w2' },
    ]
    await s.delivery.reportEarlier()
    expect(s.said.map((x) => x.text)).toEqual([
      'turn 1: the reply could not be delivered (0 of 2 part(s) posted; w1). It is saved on box in /f1.',
      'turn 2: the reply could not be delivered (1 of 2 part(s) posted; w2). It is saved on box in /f2.',
    ])
    expect(s.reactions).toEqual([[5, 'failed']])
    // The second notice did not get through: it stays for the next start.
    expect(s.state.undelivered?.map((u) => u.turn)).toEqual([2])
    expect(s.logs).toEqual([
      'turn 1: telling the group its reply was not delivered',
      'turn 2: telling the group its reply was not delivered',
    ])
  })

  it('delivers the topic’s turn (no prompt) without a receipt, audited as the topic’s', async () => {
    const s = setup([{ kind: 'posted', total: 1 }])
    await s.delivery.deliver(undefined, 1, 'r', 'done', never, () => {})
    expect(s.receipts).toEqual([])
    expect(s.audit).toEqual([expect.objectContaining({ event: 'turn', turn: 1, outcome: 'done', sender: 'topic' })])
  })

  it('gives up the topic’s stalled reply with no reaction to set, now or at the next start', async () => {
    const s = setup([
      { kind: 'stalled', posted: 1, total: 2, reason: 'stranger' },
      { kind: 'posted', total: 1 },
    ])
    await s.delivery.deliver(undefined, 1, 'r', 'done', never, () => {})
    expect(s.said).toHaveLength(2)
    expect(s.receipts).toEqual([])
    expect(s.reactions).toEqual([])
    expect(s.state.undelivered).toBeUndefined()
    const stopped = setup([{ kind: 'aborted', posted: 1, total: 2 }], { lifeAborted: true })
    await stopped.delivery.deliver(undefined, 1, 'r', 'done', never, () => {})
    expect(stopped.state.undelivered?.[0]).not.toHaveProperty('target')
  })

  it('says how far a cancelled topic reply got, with no receipt to move', async () => {
    const s = setup([{ kind: 'aborted', posted: 1, total: 3 }])
    await s.delivery.deliver(undefined, 1, 'r', 'done', never, () => {})
    expect(s.said[1]?.text).toBe('turn 1: the rest of the reply is cancelled (1 of 3 part(s) posted).')
    expect(s.said[1]?.abort).toBe(s.life.signal)
    expect(s.receipts).toEqual([])
    expect(s.audit.map((e) => e.outcome)).toEqual(['reply cancelled after 1 of 3 part(s)'])
  })

  it('reports a ❌ reaction on an earlier reply that fails, and keeps going', async () => {
    const refused = new Error('no reaction')
    const s = setup([], { reactFails: refused })
    s.state.undelivered = [
      { turn: 1, file: '/f1', posted: 0, total: 2, why: 'w1', target: { author: '+15550000002', timestamp: 5 } },
      { turn: 2, file: '/f2', posted: 0, total: 2, why: 'w2' },
    ]
    await s.delivery.reportEarlier()
    expect(s.errors).toEqual([['reaction', refused]])
    expect(s.said).toHaveLength(2)
    expect(s.said[0]?.turn).toBe(1)
    expect(s.said[0]?.abort).toBe(s.life.signal)
    expect(s.state.undelivered).toBeUndefined()
  })

  it('reports nothing once the chat has ended', async () => {
    const s = setup([], { lifeAborted: true })
    s.state.undelivered = [{ turn: 1, file: '/f1', posted: 0, total: 2, why: 'w1' }]
    await s.delivery.reportEarlier()
    expect(s.said).toEqual([])
  })
})
