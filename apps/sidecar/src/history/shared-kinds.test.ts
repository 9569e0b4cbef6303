import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { rootKinds } from './shared-kinds.ts'

const decoded = (doc: Y.Doc): Y.Doc => {
  const d = new Y.Doc()
  Y.applyUpdate(d, Y.encodeStateAsUpdate(doc))
  return d
}

describe('the kind of each untyped root', () => {
  it('reads text, XML, map and array roots of a document decoded from an update', () => {
    const doc = new Y.Doc()
    doc.getText('code').insert(0, 'x')
    doc.getXmlFragment('prosemirror').insert(0, [new Y.XmlElement('paragraph')])
    doc.getMap('meta').set('k', 1)
    doc.getArray('list').insert(0, [1])
    expect(Object.fromEntries(rootKinds(decoded(doc)))).toEqual({
      code: 'text',
      prosemirror: 'xml',
      meta: 'map',
      list: 'array',
    })
  })

  it('knows a text whose only live characters were inserted after deleted ones (no parent on the wire)', () => {
    const doc = new Y.Doc()
    const t = doc.getText('t')
    t.insert(0, 'old')
    t.insert(3, 'new')
    t.delete(0, 3)
    const other = decoded(doc)
    const gone = new Y.Doc()
    Y.applyUpdate(gone, Y.encodeStateAsUpdate(other))
    expect(rootKinds(gone).get('t')).toBe('text')
    // Nothing live and nothing to say: a root emptied long ago has no kind.
    const empty = new Y.Doc()
    empty.getText('t').insert(0, 'a')
    empty.getText('t').delete(0, 1)
    expect(rootKinds(decoded(empty)).has('t')).toBe(false)
  })

  it("the sidecar's own roots (restore records, review suggestions) are not content: no kind, so history leaves them alone", () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'content')
    doc.getMap('e2e-col.restores').set('1', { at: 1, spans: [] })
    doc.getMap('e2e-col.review').set('s1', 'a suggestion')
    expect([...rootKinds(decoded(doc))]).toEqual([['t', 'text']])
  })
})
