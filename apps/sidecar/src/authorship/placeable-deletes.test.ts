import { clientIdFor } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { placeableDeletes } from './placeable-deletes.ts'

const ALICE_PAGE = clientIdFor(1100, 5)
const CAROL_PAGE = clientIdFor(1300, 7)

/** Carol's one character, with a delete set naming `n` clocks of `victim` nobody wrote yet. */
function predelete(victim: number, n: number): Uint8Array {
  const carol = Object.assign(new Y.Doc(), { clientID: CAROL_PAGE })
  carol.getText('t').insert(0, 'c')
  const ghost = Object.assign(new Y.Doc(), { clientID: victim })
  ghost.getText('t').insert(0, 'x'.repeat(n))
  ghost.getText('t').delete(0, n)
  const deletesOnly = Y.diffUpdate(Y.encodeStateAsUpdate(ghost), Y.encodeStateVector(ghost))
  return Y.mergeUpdates([Y.encodeStateAsUpdate(carol), deletesOnly])
}

describe("a member's delete set, cut to what exists", () => {
  it("keeps Alice's text a member deleted before she typed it, and no deletion waits in the replica", () => {
    const replica = new Y.Doc()
    const attack = predelete(ALICE_PAGE, 1000)
    const placed = placeableDeletes(attack, (client) => Y.getState(replica.store, client))
    expect(placed).toMatchObject({ ok: true, cut: 1 })
    if (!placed.ok) return
    Y.applyUpdate(replica, placed.update)
    expect(replica.store.pendingDs).toBeNull()
    const alice = Object.assign(new Y.Doc(), { clientID: ALICE_PAGE })
    alice.getText('t').insert(0, 'from alice')
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(alice))
    expect(replica.getText('t').toString()).toContain('from alice')
    // Without the cut, Alice's text is gone on arrival.
    const uncut = new Y.Doc()
    Y.applyUpdate(uncut, attack)
    Y.applyUpdate(uncut, Y.encodeStateAsUpdate(alice))
    expect(uncut.getText('t').toString()).toBe('c')
  })

  it('leaves an update deleting only what the replica holds untouched (the same bytes)', () => {
    const page = Object.assign(new Y.Doc(), { clientID: ALICE_PAGE })
    page.getText('t').insert(0, 'hello')
    const replica = new Y.Doc()
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(page))
    const before = Y.encodeStateVector(page)
    page.getText('t').delete(1, 2)
    page.getText('t').insert(0, '>')
    const update = Y.encodeStateAsUpdate(page, before)
    expect(placeableDeletes(update, (c) => Y.getState(replica.store, c))).toEqual({ ok: true, update, cut: 0 })
  })

  it('cuts a range that runs past what exists down to what exists', () => {
    const page = Object.assign(new Y.Doc(), { clientID: ALICE_PAGE })
    page.getText('t').insert(0, 'abcdef')
    page.getText('t').delete(0, 6)
    const update = Y.encodeStateAsUpdate(page)
    const placed = placeableDeletes(update, () => 4)
    expect(placed).toMatchObject({ ok: true, cut: 1 })
    if (!placed.ok) return
    expect(Y.decodeUpdate(placed.update).ds.clients.get(ALICE_PAGE)).toEqual([{ clock: 0, len: 4 }])
    expect(Y.parseUpdateMeta(placed.update)).toEqual(Y.parseUpdateMeta(update))
  })

  it('refuses what is not a Yjs update', () => {
    expect(placeableDeletes(Uint8Array.of(0xff, 0xff), () => 0)).toEqual({ ok: false })
  })
})
