import { clientIdFor, encodeHealth } from '@e2e-col/protocol'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { createAuthorBook, type AuthorRow } from '../authorship/author-book.ts'
import { authorTagOfAccount } from '../authorship/author-tag.ts'
import { heldOrWaiting } from '../authorship/client-ids.ts'
import { writtenAt } from '../authorship/updates-fixture.ts'
import { captureLogs } from '../ops/log-fixture.ts'
import { createMetrics } from '../ops/metrics.ts'
import { createAuthorGate } from './author-gate.ts'

const SELF = { number: '+15550000001' }
const BOB = { number: '+15550000002' }
const CAROL = { number: '+15550000003' }

const written = (clientId: number, text: string, clock = 0): Uint8Array => writtenAt(clientId, clock, text)
const idOf = (who: { number: string }, n: number) => clientIdFor(authorTagOfAccount(who.number), n)
const nothingHeld = () => 0

function gate() {
  // The replica: what it holds says which stripped structs were relayed, not forged.
  const replica = new Y.Doc()
  vi.useFakeTimers()
  const rows: AuthorRow[] = []
  const announced: number[][] = []
  const metrics = createMetrics()
  const logs = captureLogs('warn')
  const g = createAuthorGate({
    docId: 'doc',
    book: createAuthorBook({
      self: SELF,
      rows: { load: () => rows, put: (r) => void rows.push(r), remove: () => {}, batch: (fn) => fn() },
      maxPerAccount: 16,
      maxEntries: 64,
      tagOfNumber: authorTagOfAccount,
    }),
    held: (clientId) => Y.getState(replica.store, clientId),
    heldOrWaiting: () => heldOrWaiting(replica),
    announce: (ids) => void announced.push([...ids]),
    announceDelayMs: 1000,
    timers: {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h as number),
    },
    storing: (fn) => fn(),
    metrics,
    logger: logs.logger,
  })
  const dropped = async (reason: string): Promise<number> =>
    (await metrics.receivedDropped.get()).values.find((v) => v.labels['reason'] === reason)?.value ?? 0
  const text = () => replica.getText('t').toString()
  return { g, announced, logs, dropped, replica, text }
}

afterEach(() => {
  vi.useRealTimers()
})

/** Carol's one character, with a delete set naming `n` clocks of `victim` nobody wrote yet. */
function predelete(victim: number, n: number): Uint8Array {
  const ghost = Object.assign(new Y.Doc(), { clientID: victim })
  ghost.getText('t').insert(0, 'x'.repeat(n))
  ghost.getText('t').delete(0, n)
  const deletesOnly = Y.diffUpdate(Y.encodeStateAsUpdate(ghost), Y.encodeStateVector(ghost))
  return Y.mergeUpdates([written(idOf(CAROL, 1), 'c'), deletesOnly])
}

describe("a document's author gate: deletions of what nobody wrote yet", () => {
  it("cuts them from a member's update and a relayed answer: Alice's text typed after stays, nothing waits", async () => {
    const { g, dropped, replica, text } = gate()
    const alicePage = idOf(BOB, 9)
    for (const kind of ['update', 'sync-response'] as const) {
      const admitted = g.admit(kind, predelete(alicePage, 1000 + (kind === 'update' ? 0 : 5)), CAROL)
      expect(admitted).toBeDefined()
      Y.applyUpdate(replica, admitted as Uint8Array)
      expect(replica.store.pendingDs).toBeNull()
    }
    expect(await dropped('unplaceable-delete')).toBe(2)
    const alice = Object.assign(new Y.Doc(), { clientID: alicePage })
    alice.getText('t').insert(0, 'from alice')
    Y.applyUpdate(replica, g.admit('update', Y.encodeStateAsUpdate(alice), BOB) as Uint8Array)
    expect(text()).toContain('from alice')
  })

  it("an honest deletion that came ahead of its text is applied with the deleter's next edit", () => {
    const { g, replica, text } = gate()
    // Bob types, Alice (a page holding Bob's text) deletes it; her update reaches the replica first.
    const bob = Object.assign(new Y.Doc(), { clientID: idOf(BOB, 1) })
    bob.getText('t').insert(0, 'bob')
    const bobsEdit = Y.encodeStateAsUpdate(bob)
    const alice = Object.assign(new Y.Doc(), { clientID: idOf(CAROL, 2) })
    Y.applyUpdate(alice, bobsEdit)
    const flush = () => {
      // A page's flush: its own structs since the last, and its document's whole delete set.
      const own = new Map([...Y.decodeStateVector(Y.encodeStateVector(alice))].map(([c]) => [c, 2 ** 40]))
      own.set(alice.clientID, 0)
      return Y.encodeStateAsUpdate(alice, Y.encodeStateVector(own))
    }
    alice.getText('t').delete(0, 3)
    alice.getText('t').insert(0, 'a')
    Y.applyUpdate(replica, g.admit('update', flush(), CAROL) as Uint8Array)
    Y.applyUpdate(replica, g.admit('update', bobsEdit, BOB) as Uint8Array)
    expect(text()).toContain('bob') // the deletion was cut: nothing of Bob's existed yet
    alice.getText('t').insert(1, '!')
    Y.applyUpdate(replica, g.admit('update', flush(), CAROL) as Uint8Array)
    expect(text()).toBe(alice.getText('t').toString())
  })
})

describe("a document's author gate", () => {
  it('announces a new client id at once (beside its edit) and those of the next second together, each once', () => {
    const { g, announced } = gate()
    g.fromPage(written(1, 'a'), nothingHeld)
    expect(announced).toEqual([[1]])
    g.fromPage(written(2, 'b'), nothingHeld)
    g.fromPage(written(3, 'c'), nothingHeld)
    g.fromPage(written(1, 'again', 1), nothingHeld)
    expect(announced).toEqual([[1]])
    vi.advanceTimersByTime(1000)
    expect(announced).toEqual([[1], [2, 3]])
    g.fromPage(written(2, 'more', 1), nothingHeld)
    vi.advanceTimersByTime(5000)
    expect(announced).toEqual([[1], [2, 3]])
    g.fromPage(written(4, 'd'), nothingHeld)
    expect(announced).toEqual([[1], [2, 3], [4]])
  })

  it("leaves what a member relayed under this account's tag relayed when a page's whole-state snapshot passes it on (close 4409)", () => {
    const { g, announced, replica } = gate()
    const relayedId = idOf(SELF, 9)
    const relayed = written(relayedId, 'not alice')
    Y.applyUpdate(replica, g.admit('sync-response', relayed, BOB) as Uint8Array)
    // The page's snapshot of its whole state: everything in it the replica holds already.
    const snapshot = Y.encodeStateAsUpdate(replica)
    const heldBefore = g.holding(snapshot)
    Y.applyUpdate(replica, snapshot)
    g.fromPage(snapshot, heldBefore)
    expect(announced).toEqual([])
    expect(g.authors()).toEqual([{ clientId: relayedId, relayedBy: BOB }])
    // A page writing past it is this account writing: now its own.
    const more = written(relayedId, '!', 9)
    const heldThen = g.holding(more)
    Y.applyUpdate(replica, more)
    g.fromPage(more, heldThen)
    expect(announced).toEqual([[relayedId]])
    expect(g.authors()).toEqual([{ clientId: relayedId, author: SELF, verified: true }])
  })

  it('counts the structs Yjs keeps waiting as held: a snapshot passing them on binds nothing', () => {
    const { g, announced, replica } = gate()
    const relayedId = idOf(SELF, 9)
    // Two pieces of three, the last waiting for the missing middle one.
    const gapped = Y.mergeUpdates([written(relayedId, 'not '), written(relayedId, 'Alice', 7)])
    Y.applyUpdate(replica, g.admit('sync-response', gapped, BOB) as Uint8Array)
    expect(replica.store.pendingStructs).not.toBeNull()
    const snapshot = Y.encodeStateAsUpdate(replica)
    const heldBefore = g.holding(snapshot)
    Y.applyUpdate(replica, snapshot)
    g.fromPage(snapshot, heldBefore)
    expect(announced).toEqual([])
    expect(g.authors()).toEqual([{ clientId: relayedId, relayedBy: BOB }])
  })

  it("strips the structs written under another account's id, applies the sender's own, counts and logs once per member", async () => {
    const { g, logs, dropped, replica, text } = gate()
    const mine = idOf(SELF, 1)
    g.fromPage(written(mine, 'mine'), nothingHeld)
    Y.applyUpdate(replica, written(mine, 'mine'))
    const mixed = Y.mergeUpdates([written(idOf(CAROL, 1), 'carol'), written(mine, 'forged', 4)])
    const rest = g.admit('update', mixed, CAROL)
    expect(rest).toBeDefined()
    Y.applyUpdate(replica, rest as Uint8Array)
    expect(text()).toMatch(/^(carolmine|minecarol)$/)
    // Nothing of Carol's own: dropped whole.
    expect(g.admit('update', written(mine, 'squat', 4), CAROL)).toBeUndefined()
    expect(g.admit('update', written(idOf(BOB, 1), 'not bob'), CAROL)).toBeUndefined()
    expect(await dropped('forged-author')).toBe(3)
    expect(logs.lines.filter((l) => /another account's client id/.test(l.msg))).toHaveLength(1)
  })

  it("strips another's structs the replica holds without counting them, and keeps a delete of them", async () => {
    const { g, dropped, replica, text } = gate()
    const bob = new Y.Doc()
    bob.clientID = idOf(BOB, 1)
    bob.getText('t').insert(0, 'bob text')
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(bob))
    // Carol's page applied Bob's text, then deleted a word of it: an old page sends both.
    const carol = new Y.Doc()
    carol.clientID = idOf(CAROL, 1)
    Y.applyUpdate(carol, Y.encodeStateAsUpdate(bob))
    carol.getText('t').delete(0, 4)
    const rest = g.admit('update', Y.encodeStateAsUpdate(carol), CAROL)
    expect(rest).toBeDefined()
    expect(Y.parseUpdateMeta(rest as Uint8Array).from.size).toBe(0)
    Y.applyUpdate(replica, rest as Uint8Array)
    expect(text()).toBe('text')
    expect(await dropped('forged-author')).toBe(0)
    // The same without the delete carries nothing of Carol's: dropped, still not a forgery.
    expect(g.admit('update', Y.encodeStateAsUpdate(bob), CAROL)).toBeUndefined()
    expect(await dropped('forged-author')).toBe(0)
  })

  it('takes relayed content, marked as relayed, and a later announcement by its author verifies it', () => {
    const { g } = gate()
    const bobs = idOf(BOB, 7)
    const relayed = written(bobs, 'bob, relayed')
    expect(g.admit('sync-response', relayed, CAROL)).toBe(relayed)
    expect(g.authors()).toEqual([{ clientId: bobs, relayedBy: CAROL }])
    g.health(CAROL, encodeHealth({ authors: [bobs] }))
    expect(g.authors()).toEqual([{ clientId: bobs, relayedBy: CAROL }])
    g.health(BOB, encodeHealth({ authors: [bobs] }))
    expect(g.authors()).toEqual([{ clientId: bobs, author: BOB, verified: true }])
  })

  it("counts an announcement claiming this account's client id, and keeps the binding", async () => {
    const { g, dropped } = gate()
    const mine = idOf(SELF, 1)
    g.fromPage(written(mine, 'mine'), nothingHeld)
    g.health(CAROL, encodeHealth({ authors: [mine] }))
    expect(await dropped('author-claim-refused')).toBe(1)
    expect(g.authors()).toEqual([{ clientId: mine, author: SELF, verified: true }])
  })
})
