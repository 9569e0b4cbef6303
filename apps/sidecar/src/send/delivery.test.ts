import { decodeDeliveryNote, decodeEnvelope, MAX_SENT_IDS, type DeliveryNote, type Envelope } from '@e2e-col/protocol'
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Session } from '../browser/session.ts'
import { authorTagOfAccount } from '../authorship/author-tag.ts'
import { createDelivery } from './delivery.ts'
import { reachOn } from './send-fixture.ts'

const DOC = randomUUID()
const SIDECAR = randomUUID()

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A page that records every frame the sidecar sends it. */
function page() {
  const frames: Uint8Array[] = []
  const session = { docId: DOC, send: (f: Uint8Array) => void frames.push(f) } as unknown as Session
  const envelopes = (): Envelope[] => frames.map((f) => decodeEnvelope(f))
  const notes = (): DeliveryNote[] => envelopes().map((e) => decodeDeliveryNote(e.payload) as DeliveryNote)
  return { session, frames, envelopes, notes }
}

function setup(author?: number) {
  let t = 1_000
  const reach = reachOn({ now: () => t, sleep: async () => undefined })
  const sessions = new Set<Session>()
  const forgotten: string[][] = []
  let unsent = 0
  let ids = 0
  const delivery = createDelivery({
    docId: DOC,
    sidecarId: SIDECAR,
    sessions,
    reach,
    now: () => t,
    newMessageId: () => (ids++).toString(16).padStart(32, '0'),
    unsent: () => unsent,
    forget: (messageIds) => void forgotten.push([...messageIds]),
    ...(author === undefined ? {} : { author }),
  })
  return {
    delivery,
    reach,
    sessions,
    forgotten,
    setUnsent: (n: number) => void (unsent = n),
    setNow: (ms: number) => void (t = ms),
  }
}

const id = () => randomBytes(16).toString('hex')

describe('delivery notes', () => {
  it('greets a new page with where things stand, as a delivery envelope of the sidecar', () => {
    const s = setup()
    const p = page()
    s.setUnsent(3)
    s.delivery.greet(p.session)
    expect(p.envelopes()).toHaveLength(1)
    const env = p.envelopes()[0] as Envelope
    expect(env).toMatchObject({ kind: 'delivery', flags: 0, docId: DOC, senderId: SIDECAR, seq: 0 })
    expect(env.messageId).toBe('0'.repeat(32))
    expect(p.notes()).toEqual([{ signal: 'reachable', since: null, unsent: 3, sent: [] }])
    expect(s.delivery.note()).toEqual({ signal: 'reachable', since: null, unsent: 3, sent: [] })
  })

  it("names this account's author tag in every note, the greeting's first (the page writes under ids made from it)", async () => {
    const tag = authorTagOfAccount('+15555550101')
    const s = setup(tag)
    const p = page()
    s.delivery.greet(p.session)
    s.sessions.add(p.session)
    s.delivery.sent(id())
    await turn()
    expect(p.notes().map((n) => n.author)).toEqual([tag, tag])
  })

  it('tells every page once per turn, with every id Signal took in that turn, and forgets those ids', async () => {
    const s = setup()
    const a = page()
    const b = page()
    s.sessions.add(a.session)
    s.sessions.add(b.session)
    const taken = [id(), id(), id()]
    for (const t of taken) s.delivery.sent(t)
    s.delivery.changed()
    expect(a.frames).toHaveLength(0) // coalesced: nothing before the turn ends
    await turn()
    expect(a.notes()).toEqual([{ signal: 'reachable', since: null, unsent: 0, sent: taken }])
    expect(b.notes()).toEqual(a.notes())
    expect(s.forgotten).toEqual([taken])
    // Each note is its own envelope.
    expect(new Set(a.envelopes().map((e) => e.messageId)).size).toBe(1)

    s.delivery.changed()
    await turn()
    expect(a.notes()).toHaveLength(2)
    expect(a.notes()[1]?.sent).toEqual([])
    expect(s.forgotten).toHaveLength(1) // nothing new to forget
  })

  it('splits more ids than one note holds over several notes, losing none', async () => {
    const s = setup()
    const p = page()
    s.sessions.add(p.session)
    const taken = Array.from({ length: MAX_SENT_IDS + 5 }, id)
    for (const t of taken) s.delivery.sent(t)
    await turn()
    expect(p.notes().map((n) => n.sent.length)).toEqual([MAX_SENT_IDS, 5])
    expect(p.notes().flatMap((n) => n.sent)).toEqual(taken)
    expect(s.forgotten).toEqual([taken])
  })

  it('forgets the ids Signal took even with no page open, and the next page hears none of them', async () => {
    const s = setup()
    const taken = Array.from({ length: MAX_SENT_IDS + 1 }, id)
    for (const t of taken) s.delivery.sent(t)
    await turn()
    expect(s.forgotten).toEqual([taken])
    const p = page()
    s.sessions.add(p.session)
    s.delivery.changed()
    await turn()
    expect(p.notes()).toEqual([{ signal: 'reachable', since: null, unsent: 0, sent: [] }])
  })

  it('shows a refusal with its time and reason until a later send of the document goes through', async () => {
    const s = setup()
    const p = page()
    s.sessions.add(p.session)
    s.setNow(5_000)
    s.delivery.refused('Untrusted identity for +•••••••••12')
    await turn()
    const refused = {
      signal: 'refused',
      since: 5_000,
      unsent: 0,
      sent: [],
      reason: 'Untrusted identity for +•••••••••12',
    }
    expect(p.notes()).toEqual([refused])
    expect(s.delivery.note()).toEqual(refused)
    s.delivery.changed()
    await turn()
    expect(p.notes()[1]).toEqual(refused) // a state change alone does not lift it

    const later = id()
    s.delivery.sent(later)
    await turn()
    expect(p.notes()[2]).toEqual({ signal: 'reachable', since: null, unsent: 0, sent: [later] })
  })

  it("reports the sidecar's view of Signal and when it went away", async () => {
    const s = setup()
    const p = page()
    s.sessions.add(p.session)
    s.setNow(7_000)
    s.reach.failed('network', false)
    s.delivery.changed()
    await turn()
    s.reach.failed('daemon-down', false)
    s.setUnsent(2)
    s.delivery.changed()
    await turn()
    expect(p.notes()).toEqual([
      { signal: 'unreachable', since: 7_000, unsent: 0, sent: [] },
      { signal: 'daemon-down', since: 7_000, unsent: 2, sent: [] },
    ])
  })
})
