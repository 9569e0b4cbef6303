import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { manualTimers } from '@e2e-col/sync/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { captureLogs } from '../ops/log-fixture.ts'
import { loadReplica } from '../replica/replica.ts'
import { openSidecarStore } from '../phases/store.ts'
import { createDocHistory, readRestoreReason, restoreReason, type HistoryPolicy } from './doc-history.ts'
import { WHOLE_EVERY } from './version-rows.ts'

const SELF = '+33600000001'
const BOB = '+33600000002'
const DOC = 'doc-1'
const POLICY: HistoryPolicy = {
  quietMs: 3000,
  maxSpellMs: 60_000,
  absenceMs: 600_000,
  changeDays: 7,
  retention: { allDays: 1, dailyDays: 3, maxBytes: 1_000_000 },
}

function setup(policy: HistoryPolicy = POLICY) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-history-'))
  const store = openSidecarStore(dir)
  onTestFinished(() => {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const replica = loadReplica(store, DOC)
  const timers = manualTimers()
  const logs = captureLogs()
  const history = createDocHistory(DOC, replica, policy, {
    table: store.history,
    timers,
    self: SELF,
    storing: (fn) => fn(),
    logger: logs.logger,
  })
  replica.observe(history)
  // Edits as a page (or a member) makes them: one update each, applied through the replica.
  const author = new Y.Doc()
  const edit = (text: string, origin: { via: 'page' } | { via: 'member'; author?: string } = { via: 'page' }) => {
    const before = Y.encodeStateVector(author)
    author.getText('t').insert(author.getText('t').length, text)
    expect(replica.apply(Y.encodeStateAsUpdate(author, before), origin)).toBe(true)
  }
  return { dir, store, replica, timers, logs, history, edit }
}

const textOf = (state: Uint8Array | undefined): string => {
  const doc = new Y.Doc()
  if (state !== undefined) Y.applyUpdate(doc, state)
  return doc.getText('t').toString()
}

describe("a document's versions as it changes", () => {
  it('a spell of edits becomes one version once quiet, with its author, and its changes merge into one', () => {
    const { store, timers, history, edit } = setup()
    edit('a')
    timers.advance(1000)
    edit('b')
    timers.advance(1000)
    edit('c')
    timers.advance(2999)
    expect(history.list(undefined, 10)).toEqual([])
    timers.advance(1)
    const [v] = history.list(undefined, 10)
    expect(v).toMatchObject({ reason: 'quiet', authors: [SELF], chars: 3 })
    expect(store.history.changesAfter(DOC, 0).map((c) => c.author)).toEqual([SELF])
    const shown = new Y.Doc()
    Y.applyUpdate(shown, history.state(v?.id ?? 0) as Uint8Array)
    expect(shown.getText('t').toString()).toBe('abc')
  })

  it('a spell that never goes quiet is a version after maxSpellMs', () => {
    const { timers, history, edit } = setup()
    for (let i = 0; i < 61; i++) {
      edit('x')
      timers.advance(1000)
    }
    expect(history.list(undefined, 10).map((v) => v.chars)).toEqual([60])
  })

  it('a member back from an absence: the document before their change, and after it, are versions', () => {
    const { timers, history, edit } = setup()
    edit('mine ')
    edit('theirs', { via: 'member', author: BOB })
    expect(history.list(undefined, 10).map((v) => [v.reason, v.authors, v.chars])).toEqual([
      ['catch-up', [BOB], 11],
      ['before-catch-up', [SELF], 5],
    ])
    // Heard again soon after: an ordinary spell.
    timers.advance(1000)
    edit('!', { via: 'member', author: BOB })
    expect(history.list(undefined, 10)).toHaveLength(2)
    timers.advance(3000)
    expect(history.list(undefined, 10)[0]).toMatchObject({ reason: 'quiet', authors: [BOB] })
  })

  it('drops the versions the policy no longer keeps and says so in the log', () => {
    const { timers, history, logs, edit } = setup()
    for (let i = 0; i < 3; i++) {
      edit('x')
      timers.advance(3000)
    }
    expect(history.list(undefined, 10)).toHaveLength(3)
    timers.jump(2 * 86_400_000)
    edit('y')
    timers.advance(3000)
    // The three of one day older than a day: the newest of them stays.
    expect(history.list(undefined, 10).map((v) => v.chars)).toEqual([4, 3])
    const line = logs.lines.find((l) => l.msg.includes('dropped versions'))
    expect(line).toMatchObject({ docId: DOC, dropped: 2, byReason: { 'one-a-day': 2 } })
    // The kept ones were differences from the dropped ones: they still read whole.
    expect(history.list(undefined, 10).map((v) => textOf(history.state(v.id)))).toEqual(['xxxy', 'xxx'])
  })

  it('stores each version as the difference from the one before, whole again every WHOLE_EVERY', () => {
    const { store, timers, history, edit } = setup()
    for (let i = 0; i <= WHOLE_EVERY + 1; i++) {
      edit(String(i % 10))
      timers.advance(3000)
    }
    // Oldest first.
    const listed = history.list(undefined, 100)
    const ids = listed.map((_, i) => listed[listed.length - 1 - i]?.id ?? 0)
    const bases = ids.map((id) => store.history.stored(DOC, id)?.base)
    expect(bases[0]).toBeUndefined()
    expect(bases[1]).toBe(ids[0])
    expect(bases[WHOLE_EVERY + 1]).toBeUndefined()
    expect(textOf(history.state(ids[WHOLE_EVERY] ?? 0))).toHaveLength(WHOLE_EVERY + 1)
  })

  it('content relayed in a sync answer (no author) is in the version but names nobody', () => {
    const { timers, history, edit } = setup()
    edit('mine')
    timers.advance(3000)
    edit(' relayed', { via: 'member' })
    timers.advance(3000)
    expect(history.list(undefined, 10).map((v) => [v.authors, v.chars])).toEqual([
      [[], 12],
      [[SELF], 4],
    ])
  })

  it('close records the spell in progress', () => {
    const { history, edit } = setup()
    edit('pending')
    history.close()
    expect(history.list(undefined, 10)).toMatchObject([{ reason: 'closing', chars: 7 }])
  })
})

describe('what a revert can start from exactly', () => {
  it('from nothing while every change is kept; from the oldest version the kept changes rebuild once some are dropped', () => {
    const { store, timers, history, edit } = setup()
    const start = timers.now()
    edit('a')
    timers.advance(3000)
    edit('b')
    timers.advance(3000)
    const [second, first] = history.list(undefined, 10)
    if (first === undefined || second === undefined) throw new Error('two versions expected')
    expect(history.since(start)?.exact).toBe(true)
    expect(history.oldestExact()).toBe(0)

    // The first spell's change is dropped: nothing before the first version can be rebuilt now.
    expect(store.history.dropChangesBefore(DOC, first.at)).toBe(1)
    expect(history.since(start)?.exact).toBe(false)
    expect(history.since(first.at)?.exact).toBe(true)
    expect(history.oldestExact()).toBe(first.at)
  })

  it('a restore is recorded with the version it restored; its record in the document, not its version, tells an undo what it re-created', () => {
    const { store, timers, history, edit } = setup()
    const start = timers.now()
    edit('a')
    timers.advance(3000)
    const [kept] = history.list(undefined, 10)
    if (kept === undefined) throw new Error('a version expected')
    edit('b')
    const restore = history.record(restoreReason(kept.id, kept.at, 4321))
    expect(readRestoreReason(restore?.reason ?? '')).toEqual({ versionId: kept.id, versionAt: kept.at, clientId: 4321 })
    expect(history.since(start)?.exact).toBe(true)
    // The restored version is dropped: the undo still reads the restore from the document's record.
    store.history.dropVersions(DOC, [kept.id])
    expect(history.since(start)?.exact).toBe(true)
  })

  it('never from nothing when content came relayed (a sync answer names no author)', () => {
    const { timers, history, edit } = setup()
    const start = timers.now()
    timers.advance(1)
    edit('given on joining', { via: 'member' })
    timers.advance(3000)
    const [joined] = history.list(undefined, 10)
    expect(history.since(start)?.exact).toBe(false)
    expect(history.oldestExact()).toBe(joined?.at)
    expect(history.since(joined?.at ?? 0)?.exact).toBe(true)
  })
})

describe('the byte bound under churn', () => {
  it("one member's 200 rewrites of 1,200 characters: versions and changes together stay within maxBytes, every kept version reads, the file gives pages back", () => {
    const maxBytes = 64 * 1024
    const { dir, store, replica, timers, history } = setup({
      ...POLICY,
      retention: { allDays: 7, dailyDays: 90, maxBytes },
    })
    const author = new Y.Doc()
    const text = author.getText('t')
    let seed = 7
    const letter = (): string => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return String.fromCharCode(97 + (seed % 26))
    }
    for (let i = 0; i < 200; i++) {
      const before = Y.encodeStateVector(author)
      author.transact(() => {
        text.delete(0, text.length)
        text.insert(0, Array.from({ length: 1200 }, letter).join(''))
      })
      expect(replica.apply(Y.encodeStateAsUpdate(author, before), { via: 'member', author: BOB })).toBe(true)
      timers.advance(3000)
    }
    const stored = store.history.storedBytes(DOC)
    expect(stored.versions + stored.changes).toBeLessThanOrEqual(maxBytes)
    const kept = history.list(undefined, 500)
    expect(kept.length).toBeGreaterThan(10)
    // Every kept version still reads whole: the newest is the document now.
    for (const v of kept) expect(textOf(history.state(v.id))).toHaveLength(1200)
    expect(textOf(history.state(kept[0]?.id ?? 0))).toBe(text.toString())
    // Pages freed by what was dropped went back to the file system: hardly any free page is left.
    const reader = new Database(join(dir, 'replica.sqlite3'), { readonly: true })
    try {
      const free = Number(reader.pragma('freelist_count', { simple: true }))
      const page = Number(reader.pragma('page_size', { simple: true }))
      expect(free * page).toBeLessThan(16 * 1024)
    } finally {
      reader.close()
    }
  })
})
