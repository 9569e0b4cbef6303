import { clientIdFor } from '@e2e-col/protocol'
import { createSuggestion, decideWithout, listSuggestions, readText } from '@e2e-col/review'
import { pino } from 'pino'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import type { ReviewedDoc } from '../review/api-common.ts'
import { APPROVAL_LIMITS, createApprovals } from './approvals.ts'
import { decodeBatch } from './kept-batch.ts'

const DOC = '00000000-0000-4000-8000-000000000001'
const ME = clientIdFor(1100, 7)
const TARGET = { name: 'text', kind: 'text' } as const

/** Timers moved by hand: `tick(ms)` fires what is due. */
function manualTimers() {
  let now = 1_000
  const due: { at: number; fn: () => void; id: number }[] = []
  let next = 0
  return {
    now: () => now,
    setTimeout: (fn: () => void, ms: number) => {
      due.push({ at: now + ms, fn, id: ++next })
      return next
    },
    clearTimeout: (id: unknown) => {
      const i = due.findIndex((d) => d.id === id)
      if (i >= 0) due.splice(i, 1)
    },
    tick(ms: number) {
      now += ms
      for (const d of due.filter((x) => x.at <= now)) {
        due.splice(due.indexOf(d), 1)
        d.fn()
      }
    },
  }
}

function world(text: string, role: 'editor' | 'commenter' | 'viewer' = 'editor') {
  const doc = new Y.Doc({ gc: false })
  doc.clientID = ME
  doc.getText('text').insert(0, text)
  const reviewed: ReviewedDoc = {
    doc,
    edit: (u) => {
      Y.applyUpdate(doc, u)
      return true
    },
    role: () => role,
    writerId: () => ME,
  }
  const sent: string[] = []
  const timers = manualTimers()
  // The kept file as it stands when each Note to Self goes out.
  const file = { text: undefined as string | undefined, atSend: [] as (string | undefined)[] }
  const make = () =>
    createApprovals({
      sendNoteToSelf: async (t) => {
        file.atSend.push(file.text)
        sent.push(t)
      },
      titleOf: async () => 'Trip plan',
      reviewed: (id) => (id === DOC ? reviewed : undefined),
      kept: { read: () => file.text, write: (written) => void (file.text = written) },
      timers,
      logger: pino({ level: 'silent' }),
    })
  let approvals = make()
  let r = 0
  const ids: string[] = []
  const suggest = (find: string, replace: string) => {
    const id = createSuggestion(doc, {
      target: TARGET,
      base: readText(doc, TARGET).base,
      find,
      replace,
      agent: 'Claude',
      at: 1,
      random: () => (r += 7919),
    })
    approvals.suggested({ docId: DOC, agent: 'Claude', id, find, replace, note: undefined })
    ids.push(id)
    return id
  }
  const phone = async (body: string) => {
    approvals.noteToSelf({ body })
    await approvals.settled()
  }
  return {
    doc,
    sent,
    timers,
    file,
    get approvals() {
      return approvals
    },
    /** The sidecar stops and starts again over the same data folder. */
    restart() {
      approvals.close()
      approvals = make()
    },
    suggest,
    phone,
    status: () => ids.map((id) => listSuggestions(doc).find((s) => s.id === id)?.status),
  }
}

describe('approval from the phone', () => {
  it('the list is kept before it is sent, and "accept 1" after a restart accepts from it', async () => {
    const w = world('Day 2: long hike and a picnic.')
    w.suggest('long hike', 'walk')
    w.suggest('picnic', 'lunch')
    w.timers.tick(APPROVAL_LIMITS.quietMs)
    await w.approvals.settled()
    expect(w.sent).toHaveLength(1)
    expect(decodeBatch(w.file.atSend[0] ?? '', APPROVAL_LIMITS.itemsPerBatch)?.items.map((i) => i.find)).toEqual([
      'long hike',
      'picnic',
    ])
    w.restart()
    await w.phone('accept 1')
    expect(w.doc.getText('text').toString()).toBe('Day 2: walk and a picnic.')
    expect(w.status()).toEqual(['accepted', 'open'])
    expect(w.sent.at(-1)).toBe('✅ accepted 1 of 1 in “Trip plan”')
  })

  it('a kept file that does not read is no list: a reply is told nothing is waiting', async () => {
    const w = world('Day 2: long hike and a picnic.')
    w.suggest('long hike', 'walk')
    w.timers.tick(APPROVAL_LIMITS.quietMs)
    await w.approvals.settled()
    w.file.text = (w.file.text ?? '').slice(0, -3)
    w.restart()
    await w.phone('accept 1')
    expect(w.sent.at(-1)).toBe('❌ no suggestions are waiting for a reply')
    expect(w.status()).toEqual(['open'])
  })

  it('lists an agent’s suggestions in one Note to Self once it has been quiet', async () => {
    const w = world('Day 2: long hike and a picnic.')
    w.suggest('long hike', 'walk')
    w.timers.tick(APPROVAL_LIMITS.quietMs - 1)
    w.suggest('picnic', 'lunch')
    w.timers.tick(APPROVAL_LIMITS.quietMs - 1)
    await w.approvals.settled()
    expect(w.sent).toEqual([])
    w.timers.tick(1)
    await w.approvals.settled()
    expect(w.sent).toEqual([
      'Claude suggests 2 changes in “Trip plan”:\n1. “long hike” → “walk”\n2. “picnic” → “lunch”\nReply “accept 1”, “reject 2” or “accept all”.',
    ])
  })

  it('"accept 1" accepts the first, leaves the second open, and answers with a receipt', async () => {
    const w = world('Day 2: long hike and a picnic.')
    w.suggest('long hike', 'walk')
    w.suggest('picnic', 'lunch')
    w.timers.tick(APPROVAL_LIMITS.quietMs)
    await w.phone('Accept 1 ')
    expect(w.doc.getText('text').toString()).toBe('Day 2: walk and a picnic.')
    expect(w.status()).toEqual(['accepted', 'open'])
    expect(w.sent.at(-1)).toBe('✅ accepted 1 of 1 in “Trip plan”')
    await w.phone('reject all')
    expect(w.status()).toEqual(['accepted', 'rejected'])
    expect(w.sent.at(-1)).toBe('✅ rejected 1 of 2 in “Trip plan”\n1 was already accepted')
  })

  it('refuses a number not in the list, a stale one and one decided elsewhere, changing nothing', async () => {
    const w = world('Day 2: long hike and a picnic.')
    const first = w.suggest('long hike', 'walk')
    w.suggest('picnic', 'lunch')
    w.timers.tick(APPROVAL_LIMITS.quietMs)
    await w.phone('accept 9')
    expect(w.sent.at(-1)).toBe('❌ accepted 0 of 1 in “Trip plan”\n9 is not in the list (it has 2)')
    decideWithout(w.doc, first, 'rejected', 2)
    w.doc.getText('text').delete(w.doc.getText('text').toString().indexOf('picnic'), 3)
    await w.phone('accept all')
    expect(w.sent.at(-1)).toBe(
      '❌ accepted 0 of 2 in “Trip plan”\n1 was already rejected\n2 is stale: the text changed',
    )
    expect(w.doc.getText('text').toString()).toBe('Day 2: long hike and a nic.')
  })

  it("a commenter's account applies nothing and is told so; a reply with no list waiting is told so", async () => {
    const w = world('Day 2: long hike.', 'commenter')
    await w.phone('accept 1')
    expect(w.sent).toEqual(['❌ no suggestions are waiting for a reply'])
    w.suggest('long hike', 'walk')
    w.timers.tick(APPROVAL_LIMITS.quietMs)
    await w.phone('accept 1')
    expect(w.sent.at(-1)).toBe('❌ nothing applied in “Trip plan”: only its editors accept or reject suggestions')
    expect(w.status()).toEqual(['open'])
  })

  it("ignores the person's own notes and the sidecar's own messages coming back; takes only so many commands a minute", async () => {
    const w = world('Day 2: long hike.')
    w.suggest('long hike', 'walk')
    w.timers.tick(APPROVAL_LIMITS.quietMs)
    await w.approvals.settled()
    for (const body of ['buy milk', w.sent[0] ?? '']) await w.phone(body)
    expect(w.sent).toHaveLength(1)
    for (let i = 0; i < APPROVAL_LIMITS.commandsPerMinute + 5; i++) await w.phone('reject 7')
    expect(w.sent).toHaveLength(1 + APPROVAL_LIMITS.commandsPerMinute)
  })
})
