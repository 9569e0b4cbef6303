/**
 * Which shared type a root of a document holds, read from its items: a document decoded from an
 * update has untyped roots (Yjs learns the type only when a binding asks for it), and restore and
 * revert must ask for the right one.
 */
import * as Y from 'yjs'

export type SharedKind = 'text' | 'xml' | 'map' | 'array'

/** The kind a root holds, undefined when it holds nothing visible. */
export function kindOf(type: Y.AbstractType<any> | undefined): SharedKind | undefined {
  if (type === undefined) return undefined
  if (type instanceof Y.XmlFragment) return 'xml'
  if (type instanceof Y.Text) return 'text'
  if (type instanceof Y.Map) return 'map'
  if (type instanceof Y.Array) return 'array'
  for (let item = type._start; item !== null; item = item.right) {
    const c = item.content
    if (c instanceof Y.ContentDeleted) continue
    if (c instanceof Y.ContentString || c instanceof Y.ContentFormat || c instanceof Y.ContentEmbed) return 'text'
    if (c instanceof Y.ContentType && (c.type instanceof Y.XmlElement || c.type instanceof Y.XmlText)) return 'xml'
    return 'array'
  }
  for (const item of type._map.values()) if (!item.deleted) return 'map'
  return undefined
}

/** The root `name` of `doc` as the shared type of `kind` (an untyped root is typed by this). */
export function rootOf(doc: Y.Doc, name: string, kind: SharedKind): Y.AbstractType<any> {
  switch (kind) {
    case 'text':
      return doc.getText(name)
    case 'xml':
      return doc.getXmlFragment(name)
    case 'map':
      return doc.getMap(name)
    case 'array':
      return doc.getArray(name)
  }
}

/** Every root of `a` and `b` with the kind it holds in either (the first that says). */
export function rootKinds(...docs: Y.Doc[]): Map<string, SharedKind> {
  const kinds = new Map<string, SharedKind>()
  for (const doc of docs)
    for (const [name, type] of doc.share) {
      if (kinds.has(name)) continue
      const kind = kindOf(type)
      if (kind !== undefined) kinds.set(name, kind)
    }
  return kinds
}
