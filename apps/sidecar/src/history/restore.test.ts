import { clientIdFor } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { readRestoreRecords } from './restore-record.ts'
import { restoreChange } from './restore.ts'

/** A replica as the sidecar holds it: a doc rebuilt from updates, roots untyped. */
function replicaOf(doc: Y.Doc): Y.Doc {
  const r = new Y.Doc()
  Y.applyUpdate(r, Y.encodeStateAsUpdate(doc))
  return r
}

/** Counts the characters a Yjs update inserts and the characters it deletes. */
function sizeOf(update: Uint8Array): { inserted: number; deleted: number } {
  const { structs, ds } = Y.decodeUpdate(update)
  const inserted = structs.reduce((n, s) => n + (s instanceof Y.Item ? s.length : 0), 0)
  let deleted = 0
  ds.clients.forEach((items) => items.forEach((item) => (deleted += item.len)))
  return { inserted, deleted }
}

const para = (text: string) => {
  const p = new Y.XmlElement('paragraph')
  p.insert(0, [new Y.XmlText(text)])
  return p
}
describe('restore to a version', () => {
  it("is written under the client id given (one of the account's author tag), and only under it", () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'Trip plan')
    const version = Y.encodeStateAsUpdate(doc)
    doc.getText('t').delete(0, 4)
    const writer = clientIdFor(1234, 77)
    const change = restoreChange(replicaOf(doc), version, writer)
    expect([...Y.parseUpdateMeta(change).from.keys()]).toEqual([writer])
    Y.applyUpdate(doc, change)
    expect(doc.getText('t').toString()).toBe('Trip plan')
  })

  it('Y.Text: everything deleted comes back as one insertion of the old text', () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'Trip plan: Lisbon, then Porto')
    const version = Y.encodeStateAsUpdate(doc)
    doc.getText('t').delete(0, doc.getText('t').length)
    const replica = replicaOf(doc)
    const change = restoreChange(replica, version)
    Y.applyUpdate(doc, change)
    expect(doc.getText('t').toString()).toBe('Trip plan: Lisbon, then Porto')
  })

  it("Y.Text: the version is written anew, reusing none of the letters there now (nobody's letters mixed)", () => {
    const doc = new Y.Doc()
    const t = doc.getText('t')
    t.insert(0, 'a'.repeat(20) + ' middle ' + 'b'.repeat(20))
    const version = Y.encodeStateAsUpdate(doc)
    t.insert(5, 'XX')
    t.delete(30, 3)
    const writer = clientIdFor(1234, 78)
    const change = restoreChange(replicaOf(doc), version, writer)
    Y.applyUpdate(doc, change)
    expect(t.toString()).toBe('a'.repeat(20) + ' middle ' + 'b'.repeat(20))
    // Every letter now is the restorer's: one insertion of the whole version, and the restore's record.
    expect(sizeOf(change).inserted).toBe(48 + 1)
    const [record] = readRestoreRecords(doc)
    expect(record).toMatchObject({ clientId: writer, versionAt: 0 })
    // Its runs cover the whole version: 48 letters, each paired with a copy.
    expect(record?.spans.filter((_, i) => i % 4 === 2).reduce((a, b) => a + b, 0)).toBe(48)
    const live = [...doc.store.clients.values()].flat().filter((s) => s instanceof Y.Item && !s.deleted && s.countable)
    expect([...new Set(live.map((s) => s.id.client))]).toEqual([writer])
  })

  it('Y.Text: formatting comes back as it was (bold removed, italic restored)', () => {
    const doc = new Y.Doc()
    const t = doc.getText('t')
    t.insert(0, 'hello world', { italic: true })
    const version = Y.encodeStateAsUpdate(doc)
    t.format(0, 5, { bold: true, italic: null })
    Y.applyUpdate(doc, restoreChange(replicaOf(doc), version))
    expect(t.toDelta()).toEqual([{ insert: 'hello world', attributes: { italic: true } }])
  })

  it('Y.XmlFragment: the paragraphs come back as copies written by the restorer, attributes and all', () => {
    const doc = new Y.Doc()
    const frag = doc.getXmlFragment('prosemirror')
    frag.insert(0, [para('first'), para('second'), para('third')])
    const heading = new Y.XmlElement('heading')
    heading.setAttribute('level', '1')
    frag.insert(0, [heading])
    const version = Y.encodeStateAsUpdate(doc)
    const wanted = frag.toString()
    ;((frag.get(2) as Y.XmlElement).get(0) as Y.XmlText).insert(6, ' edited')
    frag.delete(3, 1)
    heading.setAttribute('level', '2')
    const secondText = (frag.get(2) as Y.XmlElement).get(0) as Y.XmlText
    const change = restoreChange(replicaOf(doc), version, 4321)
    Y.applyUpdate(doc, change)
    expect(frag.toString()).toBe(wanted)
    expect((frag.get(2) as Y.XmlElement).get(0)).not.toBe(secondText)
    const live = [...doc.store.clients.values()].flat().filter((s) => s instanceof Y.Item && !s.deleted && s.countable)
    expect([...new Set(live.map((s) => s.id.client))]).toEqual([4321])
  })

  it('Y.Map: only the keys that differ are written anew or deleted', () => {
    const doc = new Y.Doc()
    const m = doc.getMap('m')
    m.set('title', 'Trip')
    m.set('days', 3)
    const notes = new Y.Text('bring boots')
    m.set('notes', notes)
    const version = Y.encodeStateAsUpdate(doc)
    m.set('days', 5)
    m.set('added', true)
    notes.insert(0, 'do not ')
    const change = restoreChange(replicaOf(doc), version)
    Y.applyUpdate(doc, change)
    expect(m.toJSON()).toEqual({ title: 'Trip', days: 3, notes: 'bring boots' })
    // title untouched: the change sets only days and notes (and deletes added).
    const { structs } = Y.decodeUpdate(change)
    expect(structs.filter((s) => s instanceof Y.Item && s.parentSub === 'title')).toEqual([])
  })

  it('a concurrent edit made elsewhere survives the restore when both merge', () => {
    const alice = new Y.Doc()
    alice.getText('t').insert(0, 'one two three')
    const version = Y.encodeStateAsUpdate(alice)
    alice.getText('t').delete(0, 13)
    const bob = replicaOf(alice)
    bob.getText('t').insert(0, 'late ')
    const change = restoreChange(replicaOf(alice), version)
    Y.applyUpdate(alice, change)
    Y.applyUpdate(alice, Y.encodeStateAsUpdate(bob))
    expect(alice.getText('t').toString()).toContain('late ')
    expect(alice.getText('t').toString()).toContain('one two three')
  })

  it('an equal document makes an empty change', () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'same')
    const change = restoreChange(replicaOf(doc), Y.encodeStateAsUpdate(doc))
    expect(sizeOf(change)).toEqual({ inserted: 0, deleted: 0 })
  })
})
