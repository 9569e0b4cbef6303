import { encodeEnvelope } from '@e2e-col/protocol'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { addComment } from '@e2e-col/review'
import { createLogger } from '../ops/logger.ts'
import { createDemotionWatch, deletesBeyond } from './demotion.ts'
import { openNotSharedBook } from '../stranded/not-shared-book.ts'
import type { GroupRoles, Role } from '../roles/roles.ts'
import type { Changer } from '../stranded/rejoin-port.ts'

const BOB = 11
const DOC = '00000000-0000-4000-8000-000000000001'
const ALICE = 22
const ALICE_NUMBER = '+15550000001'
const CAROL_NUMBER = '+15550000003'

/** The roles a listing gives: Alice an editor, Carol and everyone else a viewer, this account `self`. */
const listing = (self: Role): GroupRoles => ({
  on: true,
  of: (who) => (who?.number === ALICE_NUMBER ? 'editor' : 'viewer'),
  self,
  editors: [ALICE_NUMBER],
})

function change(doc: Y.Doc, fn: (t: Y.Text) => void): Uint8Array {
  const before = Y.encodeStateVector(doc)
  fn(doc.getText('t'))
  return Y.encodeStateAsUpdate(doc, before)
}

/** An outbox row of Bob's page's change. */
const row = (i: number, payload: Uint8Array) => ({
  frame: encodeEnvelope({
    kind: 'update',
    flags: 0,
    docId: DOC,
    senderId: DOC,
    messageId: String(i).repeat(32),
    seq: i,
    payload,
  }),
  messageId: String(i).repeat(32),
})

/** Bob's replica holding Alice's "Hello" and his own " from Bob"; the group (Alice) holds "Hello". */
function setting(outbox: 'held' | 'sent') {
  const alice = new Y.Doc()
  alice.clientID = ALICE
  const hello = change(alice, (t) => t.insert(0, 'Hello'))
  const replica = new Y.Doc()
  Y.applyUpdate(replica, hello)
  replica.clientID = BOB
  // Typed key by key: two rows in the outbox, read as one edit.
  const typed = [' from', ' Bob'].map((text, i) =>
    row(
      i + 1,
      change(replica, (t) => t.insert(t.length, text)),
    ),
  )
  let rows = outbox === 'held' ? typed : []
  const parts = {
    docId: 'd',
    book: openNotSharedBook(mkdtempSync(join(tmpdir(), 'demotion-')), () => 5),
    replica: { doc: replica },
    store: {
      kept: () => rows,
      delivered: vi.fn((ids: readonly string[]) => void (rows = rows.filter((r) => !ids.includes(r.messageId)))),
    },
    changer: vi.fn((): Changer | undefined => undefined),
    ownIds: () => [BOB],
    ask: vi.fn(),
    rejoin: vi.fn(),
    restart: vi.fn(),
    told: vi.fn(),
    now: vi.fn(() => 1000),
    logger: createLogger('silent'),
  }
  const add = (r: { frame: Uint8Array; messageId: string }) => void (rows = [...rows, r])
  return { parts, watch: createDemotionWatch(parts), alice, replica, add }
}

describe("the author's side of a demotion", () => {
  it('withholds an unsent edit: kept as text, out of the outbox, the document served anew before anything is sent', () => {
    const { parts, watch } = setting('held')
    watch.listed(listing('editor'), 900)
    expect(parts.book.list('d')).toEqual([])
    watch.listed(listing('viewer'), 900)
    expect(parts.book.list('d')).toEqual([expect.objectContaining({ reason: 'unsent', text: ' from Bob', at: 1000 })])
    expect(parts.store.delivered).toHaveBeenCalledWith(['1'.repeat(32), '2'.repeat(32)])
    expect(parts.restart).toHaveBeenCalledOnce()
    expect(parts.ask).not.toHaveBeenCalled()
    expect(parts.book.rejoinPending('d')).toBe(1000)
  })

  it("served anew, asks the group's whole state and rebuilds from the first whole answer that holds the others' content", () => {
    const first = setting('held')
    first.watch.listed(listing('editor'), 900)
    first.watch.listed(listing('viewer'), 900)
    // The document served anew: a watch over the same book resumes the pending demotion.
    const parts = { ...first.parts, store: { kept: () => [], delivered: vi.fn() } }
    const watch = createDemotionWatch(parts)
    watch.listed(listing('viewer'), 900)
    expect(parts.ask).toHaveBeenCalledWith(Y.encodeStateVector(new Y.Doc()))
    // A partial answer (Alice's later typing alone) is not the group's state.
    const later = change(first.alice, (t) => t.insert(5, '!'))
    watch.answer(later)
    expect(parts.rejoin).not.toHaveBeenCalled()
    watch.answer(Y.encodeStateAsUpdate(first.alice))
    expect(parts.rejoin).toHaveBeenCalledOnce()
    const rebuilt = new Y.Doc()
    Y.applyUpdate(rebuilt, parts.rejoin.mock.calls[0]?.[0] as Uint8Array)
    expect(rebuilt.getText('t').toString()).toBe('Hello!')
    expect(parts.book.list('d')).toEqual([expect.objectContaining({ reason: 'unsent', text: ' from Bob' })])
    expect(parts.book.rejoinPending('d')).toBeUndefined()
  })

  it('an edit sent but not in the group’s state is named not taken; a page edit refused meanwhile is kept too', () => {
    const { parts, watch, alice } = setting('sent')
    watch.listed(listing('editor'), 900)
    watch.listed(listing('viewer'), 900)
    expect(parts.restart).not.toHaveBeenCalled()
    expect(parts.ask).toHaveBeenCalledOnce()
    // Bob typing as the demotion was learned: refused by his sidecar, kept while it settles.
    const typing = new Y.Doc()
    typing.clientID = BOB + 1
    watch.refused(change(typing, (t) => t.insert(0, 'typed at that moment')))
    watch.answer(Y.encodeStateAsUpdate(alice))
    expect(parts.book.list('d').map((e) => [e.reason, e.text])).toEqual([
      ['refused', 'typed at that moment'],
      ['not-taken', ' from Bob'],
    ])
    expect(parts.rejoin).toHaveBeenCalledOnce()
  })

  it('a deletion held unsent at the demotion is never sent, and the replica is rebuilt so the text is back', () => {
    const { parts, watch, alice, replica, add } = setting('sent')
    // Bob's " from Bob" was taken by the group; then he deletes "Hello", unsent when he is made a viewer.
    Y.applyUpdate(alice, Y.encodeStateAsUpdate(replica))
    add(
      row(
        3,
        change(replica, (t) => t.delete(0, 5)),
      ),
    )
    watch.listed(listing('editor'), 900)
    watch.listed(listing('viewer'), 900)
    expect(parts.store.delivered).toHaveBeenCalledWith(['3'.repeat(32)])
    expect(parts.restart).toHaveBeenCalledOnce()
    const resumed = { ...parts, store: { kept: () => [], delivered: vi.fn() } }
    const again = createDemotionWatch(resumed)
    again.listed(listing('viewer'), 900)
    again.answer(Y.encodeStateAsUpdate(alice))
    expect(resumed.rejoin).toHaveBeenCalledOnce()
    const rebuilt = new Y.Doc()
    Y.applyUpdate(rebuilt, resumed.rejoin.mock.calls[0]?.[0] as Uint8Array)
    expect(rebuilt.getText('t').toString()).toBe('Hello from Bob')
  })

  it('made a viewer while the sidecar was down: the listing after the restart settles it like one seen live', () => {
    const { parts, watch, alice } = setting('sent')
    watch.listed(listing('editor'), 900)
    // Restarted: a new watch over the same book; the role before is the one kept, not unknown.
    const after = { ...parts, ask: vi.fn(), rejoin: vi.fn() }
    const restarted = createDemotionWatch(after)
    after.changer.mockReturnValue({ number: ALICE_NUMBER, at: 990 })
    restarted.listed(listing('viewer'), 995)
    expect(after.book.demotions('d')).toEqual([{ at: 1000, role: 'viewer', by: ALICE_NUMBER }])
    expect(after.ask).toHaveBeenCalledOnce()
    // " from Bob" went out after the group had made him a viewer: dropped everywhere, so listed.
    restarted.answer(Y.encodeStateAsUpdate(alice))
    expect(after.book.list('d').map((e) => [e.reason, e.text])).toEqual([['not-taken', ' from Bob']])
    expect(after.rejoin).toHaveBeenCalledOnce()
  })

  it('a viewer since its first listing with nothing unsent asks nothing and keeps nothing', () => {
    const { parts, watch } = setting('sent')
    watch.listed(listing('viewer'), 900)
    watch.refused(change(new Y.Doc(), (t) => t.insert(0, 'x')))
    expect([parts.ask.mock.calls.length, parts.restart.mock.calls.length, parts.book.list('d')]).toEqual([0, 0, []])
  })

  it('made a commenter: the content edit is withheld, a review entry stays in the outbox to go out', () => {
    const { parts, watch, replica, add } = setting('held')
    const before = Y.encodeStateVector(replica)
    addComment(replica, {
      target: { name: 't', kind: 'text' },
      index: 0,
      length: 5,
      body: 'nice',
      at: 1,
      random: () => 0.5,
    })
    add(row(3, Y.encodeStateAsUpdate(replica, before)))
    watch.listed(listing('editor'), 900)
    watch.listed(listing('commenter'), 950)
    expect(parts.book.list('d')).toEqual([expect.objectContaining({ reason: 'unsent', text: ' from Bob' })])
    expect(parts.store.delivered).toHaveBeenCalledWith(['1'.repeat(32), '2'.repeat(32)])
    expect(parts.book.demotions('d')).toEqual([{ at: 1000, role: 'commenter' }])
    expect(parts.restart).toHaveBeenCalledOnce()
  })

  it('names the editor whose group update came since the listing before; not an older one, nor a viewer’s', () => {
    const named = setting('sent')
    named.watch.listed(listing('editor'), 900)
    named.parts.changer.mockReturnValue({ number: ALICE_NUMBER, at: 920 })
    named.watch.listed(listing('viewer'), 950)
    expect(named.parts.book.demotions('d')).toEqual([{ at: 1000, role: 'viewer', by: ALICE_NUMBER }])

    const stale = setting('sent')
    stale.parts.changer.mockReturnValue({ number: ALICE_NUMBER, at: 100 })
    stale.watch.listed(listing('editor'), 900)
    stale.watch.listed(listing('viewer'), 950)
    expect(stale.parts.book.demotions('d')).toEqual([{ at: 1000, role: 'viewer' }])

    const viewer = setting('sent')
    viewer.watch.listed(listing('editor'), 900)
    viewer.parts.changer.mockReturnValue({ number: CAROL_NUMBER, at: 920 })
    viewer.watch.listed(listing('viewer'), 950)
    expect(viewer.parts.book.demotions('d')).toEqual([{ at: 1000, role: 'viewer' }])
  })

  it('a demotion listed before its group update is named by the first editor’s update received after it', () => {
    const { parts, watch } = setting('sent')
    watch.listed(listing('editor'), 900)
    watch.listed(listing('viewer'), 950)
    expect(parts.book.demotions('d')).toEqual([{ at: 1000, role: 'viewer' }])
    parts.changer.mockReturnValue({ number: ALICE_NUMBER, at: 1010 })
    parts.now.mockReturnValue(1020)
    watch.listed(listing('viewer'), 1015)
    expect(parts.book.demotions('d')).toEqual([{ at: 1000, role: 'viewer', by: ALICE_NUMBER }])
    expect(parts.told).toHaveBeenCalled()
  })
})

function copy(doc: Y.Doc): Y.Doc {
  const d = new Y.Doc()
  Y.applyUpdate(d, Y.encodeStateAsUpdate(doc))
  return d
}

describe('deletions the group lacks', () => {
  it('tells a deletion the group did not take, anywhere in a deleted range, and nothing when the group has it', () => {
    const group = new Y.Doc()
    group.clientID = ALICE
    change(group, (t) => t.insert(0, 'abcdefghij'))
    change(group, (t) => t.delete(1, 2))
    const replica = copy(group)
    expect(deletesBeyond(replica, group)).toBe(false)
    // The replica also deletes "ghi" (a range the group's "bc" does not cover).
    change(replica, (t) => t.delete(4, 3))
    expect(deletesBeyond(replica, group)).toBe(true)
    // Once the group has it too, nothing is beyond; the group deleting more is not the replica's.
    Y.applyUpdate(group, Y.encodeStateAsUpdate(replica))
    expect(deletesBeyond(replica, group)).toBe(false)
    change(group, (t) => t.delete(0, 1))
    expect(deletesBeyond(replica, group)).toBe(false)
  })
})
