import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { MAX_RESTORE_SPANS, readRestoreRecords, RESTORES_ROOT, writeRestoreRecord } from './restore-record.ts'
import { restoreChange } from './restore.ts'
import { revertChange, type LoggedChange } from './revert.ts'

/** Two people editing one text, each change logged with its author, as the sidecar logs them. */
function twoWriters() {
  const alice = new Y.Doc()
  const bob = new Y.Doc()
  const log: LoggedChange[] = []
  const share = (from: Y.Doc, to: Y.Doc, author: string) =>
    from.on('update', (data: Uint8Array, origin: unknown) => {
      if (origin === 'remote') return
      log.push({ author, data })
      Y.applyUpdate(to, data, 'remote')
    })
  share(alice, bob, 'alice')
  share(bob, alice, 'bob')
  return { alice, bob, log }
}

describe("revert one member's changes since a moment", () => {
  it("undoes Bob's interleaved edits and deletions and keeps Alice's", () => {
    const { alice, bob, log } = twoWriters()
    alice.getText('t').insert(0, 'Day 1: Lisbon. Day 2: Porto.')
    const base = [Y.encodeStateAsUpdate(alice)]
    const since = log.length
    bob.getText('t').insert(0, 'SPAM ')
    alice.getText('t').insert(alice.getText('t').length, ' Day 3: Braga.')
    bob.getText('t').delete(5, 6) // "Day 1:" gone
    alice.getText('t').insert(0, 'Plan: ')
    bob.getText('t').insert(bob.getText('t').length, ' MORE SPAM')

    const change = revertChange(base, log.slice(since), 'bob', alice)
    if (change === undefined) throw new Error('no change undoes what Bob did')
    Y.applyUpdate(alice, change)
    expect(alice.getText('t').toString()).toBe('Plan: Day 1: Lisbon. Day 2: Porto. Day 3: Braga.')
  })

  it('a member who changed nothing since then gives no change', () => {
    const { alice, log } = twoWriters()
    alice.getText('t').insert(0, 'only Alice')
    expect(revertChange([], log, 'bob', alice)).toBeUndefined()
  })

  it('a hostile delete-all in one crafted update is undone, and later honest edits stay', () => {
    const { alice, bob, log } = twoWriters()
    const frag = alice.getXmlFragment('prosemirror')
    const p = new Y.XmlElement('paragraph')
    p.insert(0, [new Y.XmlText('the plan')])
    frag.insert(0, [p])
    const base = [Y.encodeStateAsUpdate(alice)]
    const since = log.length
    bob.getXmlFragment('prosemirror').delete(0, 1)
    const q = new Y.XmlElement('paragraph')
    q.insert(0, [new Y.XmlText('after')])
    alice.getXmlFragment('prosemirror').insert(0, [q])
    Y.applyUpdate(alice, revertChange(base, log.slice(since), 'bob', alice) as Uint8Array)
    expect(frag.toString()).toBe('<paragraph>after</paragraph><paragraph>the plan</paragraph>')
  })
})

/** A paragraph of one text run, bold when asked. */
function para(text: string, bold = false): Y.XmlElement {
  const p = new Y.XmlElement('paragraph')
  const t = new Y.XmlText()
  t.insert(0, text, bold ? { bold: true } : {})
  p.insert(0, [t])
  return p
}

describe('undoing a member after a restore', () => {
  const ALICE_TEXT = 'Alice: book the hotel in Lisbon.\nAlice: rent a car in Porto.'
  const RESTORER = 987_654

  /** Alice writes, Bob wipes it and writes his line, Alice restores her version: the log and her version. */
  function wipedAndRestored() {
    const w = twoWriters()
    w.alice.getText('t').insert(0, ALICE_TEXT)
    const base = [Y.encodeStateAsUpdate(w.alice)]
    const version = Y.encodeStateAsUpdate(w.alice)
    const since = w.log.length
    w.bob.getText('t').delete(0, w.bob.getText('t').length)
    w.bob.getText('t').insert(0, 'Bob was here.')
    Y.applyUpdate(w.alice, restoreChange(w.alice, version, RESTORER))
    return { ...w, base, version, since }
  }

  it("gives exactly the restorer's text: nothing brought back twice, no letters mixed", () => {
    const { alice, bob, log, base, since } = wipedAndRestored()
    expect(bob.getText('t').toString()).toBe(ALICE_TEXT)
    bob.getText('t').insert(0, 'Bob again. ')
    const change = revertChange(base, log.slice(since), 'bob', alice)
    Y.applyUpdate(alice, change as Uint8Array)
    expect(alice.getText('t').toString()).toBe(ALICE_TEXT)
  })

  it("reads the restore from its record in the document: a record written under another's client id is ignored, and the undo then doubles", () => {
    const w = twoWriters()
    w.alice.getText('t').insert(0, ALICE_TEXT)
    const base = [Y.encodeStateAsUpdate(w.alice)]
    const version = Y.encodeStateAsUpdate(w.alice)
    const since = w.log.length
    w.bob.getText('t').delete(0, w.bob.getText('t').length)
    // The restore's record moved under a key it was not written under: a member announcing another's ids.
    const restore = new Y.Doc()
    Y.applyUpdate(restore, restoreChange(w.alice, version, RESTORER))
    const record = restore.getMap(RESTORES_ROOT).get(String(RESTORER))
    const forged = new Y.Doc()
    Y.applyUpdate(forged, Y.encodeStateAsUpdate(w.alice))
    forged.clientID = RESTORER
    const sv = Y.encodeStateVector(forged)
    forged.transact(() => {
      const t = forged.getText('t')
      t.insert(0, ALICE_TEXT)
    })
    const other = new Y.Doc()
    other.clientID = 55_555
    Y.applyUpdate(other, Y.encodeStateAsUpdate(forged))
    const osv = Y.encodeStateVector(other)
    other.getMap(RESTORES_ROOT).set(String(RESTORER), record)
    Y.applyUpdate(w.alice, Y.encodeStateAsUpdate(forged, sv))
    Y.applyUpdate(w.alice, Y.encodeStateAsUpdate(other, osv))
    expect(w.alice.getText('t').toString()).toBe(ALICE_TEXT)
    Y.applyUpdate(w.alice, revertChange(base, w.log.slice(since), 'bob', w.alice) as Uint8Array)
    expect(w.alice.getText('t').toString()).toBe(ALICE_TEXT + ALICE_TEXT)
  })

  it('every member reads the same record: on a replica that only received the restore, the undo of Bob is exact', () => {
    const { alice, bob, log, base, since } = wipedAndRestored()
    const restores = readRestoreRecords(bob)
    expect(restores.map((r) => r.clientId)).toEqual([RESTORER])
    bob.getText('t').insert(0, 'Bob again. ')
    Y.applyUpdate(bob, revertChange(base, log.slice(since), 'bob', bob) as Uint8Array)
    expect(bob.getText('t').toString()).toBe(ALICE_TEXT)
    expect(alice.getText('t').toString()).toBe(ALICE_TEXT)
  })

  it("a record's bounds: malformed or oversized records are not read", () => {
    const doc = new Y.Doc()
    doc.clientID = 7
    const map = doc.getMap(RESTORES_ROOT)
    map.set('7', { at: 1, spans: [1, 2, 0, 3] })
    expect(readRestoreRecords(doc)).toEqual([])
    map.set('7', { at: -1, spans: [] })
    expect(readRestoreRecords(doc)).toEqual([])
    map.set('7', { at: 1, spans: Array.from({ length: (MAX_RESTORE_SPANS + 1) * 4 }, () => 1) })
    expect(readRestoreRecords(doc)).toEqual([])
    expect(
      writeRestoreRecord(
        doc,
        1,
        Array.from({ length: (MAX_RESTORE_SPANS + 1) * 4 }, () => 1),
      ),
    ).toBe(false)
    map.set('7', { at: 1, spans: [1, 2, 3, 4] })
    expect(readRestoreRecords(doc)).toEqual([{ clientId: 7, versionAt: 1, spans: [1, 2, 3, 4], clock: 3 }])
  })

  it('a member whose only writing the restore already took gives no change', () => {
    const { alice, log, base, since } = wipedAndRestored()
    expect(revertChange(base, log.slice(since), 'bob', alice)).toBeUndefined()
  })

  it("Bob's words inside the restored version go too: the restore's copies of them are his writing", () => {
    const w = twoWriters()
    w.alice.getText('t').insert(0, 'Plan: Lisbon.')
    const base = [Y.encodeStateAsUpdate(w.alice)]
    const since = w.log.length
    w.bob.getText('t').insert(6, 'SPAM ')
    const version = Y.encodeStateAsUpdate(w.alice)
    w.bob.getText('t').delete(0, w.bob.getText('t').length)
    Y.applyUpdate(w.alice, restoreChange(w.alice, version, RESTORER))
    expect(w.alice.getText('t').toString()).toBe('Plan: SPAM Lisbon.')
    const change = revertChange(base, w.log.slice(since), 'bob', w.alice)
    Y.applyUpdate(w.alice, change as Uint8Array)
    expect(w.alice.getText('t').toString()).toBe('Plan: Lisbon.')
  })

  it('undoing the restorer undoes the restore: what it replaced comes back, its copy goes', () => {
    const { alice, log, base, since } = wipedAndRestored()
    const change = revertChange(base, log.slice(since), 'alice', alice)
    Y.applyUpdate(alice, change as Uint8Array)
    expect(alice.getText('t').toString()).toBe('Bob was here.')
  })

  it('an edit made concurrently with the restore is kept, beside the restored text, and the undo of Bob takes it', () => {
    const w = twoWriters()
    w.alice.getText('t').insert(0, ALICE_TEXT)
    const base = [Y.encodeStateAsUpdate(w.alice)]
    const version = Y.encodeStateAsUpdate(w.alice)
    const since = w.log.length
    w.bob.getText('t').delete(0, w.bob.getText('t').length)
    w.bob.getText('t').insert(0, 'Bob was here.')
    // Bob types while Alice restores: neither has the other's change yet.
    const restore = restoreChange(w.alice, version, RESTORER)
    const typed = new Y.Doc()
    Y.applyUpdate(typed, Y.encodeStateAsUpdate(w.bob))
    const sv = Y.encodeStateVector(typed)
    typed.getText('t').insert(3, 'X')
    const concurrent = Y.encodeStateAsUpdate(typed, sv)
    Y.applyUpdate(w.alice, restore)
    Y.applyUpdate(w.bob, concurrent)
    expect(w.alice.getText('t').toString().replace('X', '')).toBe(ALICE_TEXT)
    expect(w.alice.getText('t').toString()).toContain('X')
    const change = revertChange(base, w.log.slice(since), 'bob', w.alice)
    Y.applyUpdate(w.alice, change as Uint8Array)
    expect(w.alice.getText('t').toString()).toBe(ALICE_TEXT)
  })

  it('rich text (Y.XmlFragment): after a restore of paragraphs, undoing Bob leaves exactly the restored paragraphs', () => {
    const w = twoWriters()
    w.alice.getXmlFragment('prosemirror').insert(0, [para('Day one in Lisbon', true), para('Day two in Porto')])
    const base = [Y.encodeStateAsUpdate(w.alice)]
    const version = Y.encodeStateAsUpdate(w.alice)
    const since = w.log.length
    const frag = w.bob.getXmlFragment('prosemirror')
    ;(frag.get(1) as Y.XmlElement).setAttribute('align', 'right')
    ;((frag.get(0) as Y.XmlElement).get(0) as Y.XmlText).delete(4, 4)
    frag.delete(1, 1)
    frag.insert(1, [para('Bob was here.')])
    Y.applyUpdate(w.alice, restoreChange(w.alice, version, RESTORER))
    const want = w.alice.getXmlFragment('prosemirror').toString()
    expect(want).toBe('<paragraph><bold>Day one in Lisbon</bold></paragraph><paragraph>Day two in Porto</paragraph>')
    ;(w.bob.getXmlFragment('prosemirror').get(1) as Y.XmlElement).insert(1, [new Y.XmlText(' Bob again.')])
    const change = revertChange(base, w.log.slice(since), 'bob', w.alice)
    Y.applyUpdate(w.alice, change as Uint8Array)
    expect(w.alice.getXmlFragment('prosemirror').toString()).toBe(want)
  })
})
