import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { manualTimers } from '@e2e-col/sync/testing'
import { createAskerBook, createGroupSync, type AskerBook } from './group-sync.ts'
import type { DocReplica } from './replica.ts'
import { decodeExactStateVector } from './strict-yjs.ts'

function strict(sv: Uint8Array): Uint8Array {
  if (decodeExactStateVector(sv) === undefined) throw new Error('not exactly one Yjs state vector')
  return sv
}

/** A replica over a plain Y.Doc (the store is not what these cases are about). */
function memoryReplica(text: string): DocReplica {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  const replica: Pick<DocReplica, 'doc' | 'stateVector' | 'diff' | 'lacksFrom'> = {
    doc,
    stateVector: () => Y.encodeStateVector(doc),
    diff: (sv: Uint8Array) => Y.encodeStateAsUpdate(doc, strict(sv)),
    lacksFrom: () => false,
  }
  return replica as DocReplica
}

/** Group sync over `replica` on `timers`, ranked first, with `answer` and the rest as given. */
function groupSync(
  replica: DocReplica,
  timers: ReturnType<typeof manualTimers>,
  answer: (payload: Uint8Array) => void,
  more: { fallbackMs?: number; askers?: AskerBook; rank?: number } = {},
) {
  return createGroupSync(replica, {
    minDelayMs: 10,
    maxDelayMs: 20,
    random: () => 0,
    timers,
    answer,
    askBack: () => false,
    rank: () => more.rank ?? 0,
    fallbackMs: () => more.fallbackMs ?? 1000,
    askers: more.askers,
  })
}

/**
 * An asker answered once asks the same again inside its bound (held); `seen` answers in the
 * group meanwhile (given the replica, and its insertions without its one deletion).
 */
function heldAfter(
  seen: (replica: DocReplica, insertionsOnly: Uint8Array) => Uint8Array | undefined,
  editMeanwhile = false,
): {
  answers: number
  suppressed: number
} {
  const timers = manualTimers()
  const replica = memoryReplica('hello from the replica')
  const insertionsOnly = Y.encodeStateAsUpdate(replica.doc)
  replica.doc.getText('t').delete(0, 6)
  let answers = 0
  const sync = groupSync(replica, timers, () => void (answers += 1))
  const empty = Y.encodeStateVector(new Y.Doc())
  expect(sync.onRequest(empty, 'asker', 'r1')).toBe('taken')
  timers.advance(50)
  expect(sync.onRequest(empty, 'asker', 'r2')).toBe('deferred')
  timers.advance(100)
  const answer = seen(replica, insertionsOnly)
  if (answer !== undefined) sync.onPeerResponse(answer)
  if (editMeanwhile) {
    // Another member's edit, sent to the whole group as an update, reaches the replica before the bound.
    const editor = new Y.Doc()
    Y.applyUpdate(editor, Y.encodeStateAsUpdate(replica.doc))
    editor.getText('t').insert(0, 'and an edit ')
    Y.applyUpdate(replica.doc, Y.encodeStateAsUpdate(editor, Y.encodeStateVector(replica.doc)))
  }
  timers.advance(5000)
  const { suppressed } = sync.stats()
  sync.dispose()
  return { answers, suppressed }
}

describe('group sync: a request waiting for its asker bound', () => {
  it('answers the request as it arrived even when the buffer it came in is reused before the timer fires', () => {
    const timers = manualTimers()
    const replica = memoryReplica('hello from the replica')
    const answers: Uint8Array[] = []
    const sync = groupSync(replica, timers, (payload) => void answers.push(payload))
    const empty = Y.encodeStateVector(new Y.Doc())
    expect(sync.onRequest(empty, 'asker', 'r1')).toBe('taken')
    timers.advance(50)
    expect(answers).toHaveLength(1)
    // A second request from the same asker inside its bound waits; its bytes live in a receive
    // buffer that is overwritten with garbage before the wait ends.
    const buffer = new Uint8Array(64)
    buffer.set(empty)
    const view = buffer.subarray(0, empty.byteLength)
    expect(sync.onRequest(view, 'asker', 'r2')).toBe('deferred')
    buffer.fill(0xff)
    expect(() => timers.advance(5000)).not.toThrow()
    expect(answers).toHaveLength(2)
    const peer = new Y.Doc()
    Y.applyUpdate(peer, answers[1] ?? new Uint8Array())
    expect(peer.getText('t').toString()).toBe('hello from the replica')
    sync.dispose()
  })

  it('drops a held request when another member answered it with all this replica holds', () => {
    expect(heldAfter((replica) => Y.encodeStateAsUpdate(replica.doc))).toEqual({ answers: 1, suppressed: 1 })
  })

  it('still answers a held request when the only answer since was empty (a hostile member cannot hush it)', () => {
    expect(heldAfter(() => Y.encodeStateAsUpdate(new Y.Doc()))).toEqual({ answers: 2, suppressed: 0 })
  })

  it('still answers a held request when the answer since lacked a deletion this replica holds', () => {
    expect(heldAfter((_, insertionsOnly) => insertionsOnly)).toEqual({ answers: 2, suppressed: 0 })
  })

  it('still answers a held request when no answer was seen since', () => {
    expect(heldAfter(() => undefined)).toEqual({ answers: 2, suppressed: 0 })
  })

  it("keeps each asker's bound across the document's stays in memory (a book the caller keeps)", () => {
    const timers = manualTimers()
    const replica = memoryReplica('hello from the replica')
    const book = createAskerBook()
    let answers = 0
    const stay = (askers: AskerBook | undefined) =>
      groupSync(replica, timers, () => void (answers += 1), { fallbackMs: 80_000, ...(askers ? { askers } : {}) })
    const empty = Y.encodeStateVector(new Y.Doc())
    const first = stay(book)
    expect(first.onRequest(empty, 'asker', 'r1')).toBe('taken')
    timers.advance(50)
    first.dispose()
    // Loaded again 10 s later: the same member asking again waits out its bound.
    timers.advance(10_000)
    const second = stay(book)
    expect(second.onRequest(empty, 'asker', 'r2')).toBe('deferred')
    expect(answers).toBe(1)
    second.dispose()
    // Without the book (as before) it would have been answered at once.
    const fresh = stay(undefined)
    expect(fresh.onRequest(empty, 'asker', 'r3')).toBe('taken')
    fresh.dispose()
  })
})

/**
 * This member ranked fourth for a request from an asker holding nothing; `seen` answers in the
 * group 100 ms later (given the replica, and its insertions without its one deletion), and a
 * member's edit reaches the replica (and the group) while it still waits its fallback bounds.
 */
function laterRankAfter(seen: (replica: DocReplica, insertionsOnly: Uint8Array) => Uint8Array): {
  answers: Uint8Array[]
  suppressed: number
  held: Uint8Array
} {
  const timers = manualTimers()
  const replica = memoryReplica('hello from the replica')
  const insertionsOnly = Y.encodeStateAsUpdate(replica.doc)
  replica.doc.getText('t').delete(0, 6)
  const held = Y.encodeStateAsUpdate(replica.doc)
  const answers: Uint8Array[] = []
  const sync = groupSync(replica, timers, (payload) => void answers.push(payload), { fallbackMs: 4000, rank: 3 })
  expect(sync.onRequest(Y.encodeStateVector(new Y.Doc()), 'asker', 'r1')).toBe('taken')
  timers.advance(100)
  sync.onPeerResponse(seen(replica, insertionsOnly))
  // Another member's edit, sent to the whole group as an update, arrives meanwhile.
  const editor = new Y.Doc()
  Y.applyUpdate(editor, held)
  editor.getText('t').insert(0, 'and an edit ')
  Y.applyUpdate(replica.doc, Y.encodeStateAsUpdate(editor, Y.encodeStateVector(replica.doc)))
  timers.advance(20_000)
  const { suppressed } = sync.stats()
  sync.dispose()
  return { answers, suppressed, held }
}

describe('group sync: a later-ranked member waiting its fallback bounds', () => {
  it('stays silent when the first answer gave the asker all it held, though an edit reached the group while it waited', () => {
    const { answers, suppressed } = laterRankAfter((replica) => Y.encodeStateAsUpdate(replica.doc))
    expect(answers).toHaveLength(0)
    expect(suppressed).toBe(1)
  })

  it('still answers, with all it held, when the first answer was empty (a hostile member cannot hush it)', () => {
    const { answers, held } = laterRankAfter(() => Y.encodeStateAsUpdate(new Y.Doc()))
    expect(answers).toHaveLength(1)
    const asker = new Y.Doc()
    Y.applyUpdate(asker, answers[0] as Uint8Array)
    const want = new Y.Doc()
    Y.applyUpdate(want, held)
    expect(asker.getText('t').toString()).toContain(want.getText('t').toString())
  })

  it('still answers when the first answer lacked a deletion it held', () => {
    const { answers } = laterRankAfter((_, insertionsOnly) => insertionsOnly)
    expect(answers).toHaveLength(1)
  })
})
