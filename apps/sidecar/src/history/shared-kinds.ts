/**
 * Which shared type each root of a document holds, read from the items whose parent it is: a document
 * decoded from an update has untyped roots (Yjs learns a root's type only when a binding asks for
 * it), and restore and revert must ask for the right one.
 */
import * as Y from 'yjs'

export type SharedKind = 'text' | 'xml' | 'map' | 'array'

/** The kind one top-level item says its root is. */
function kindOfItem(item: Y.Item): SharedKind | undefined {
  const c = item.content
  if (c instanceof Y.ContentDeleted) return undefined
  if (item.parentSub !== null) return 'map'
  if (c instanceof Y.ContentString || c instanceof Y.ContentFormat || c instanceof Y.ContentEmbed) return 'text'
  if (c instanceof Y.ContentType && (c.type instanceof Y.XmlElement || c.type instanceof Y.XmlText)) return 'xml'
  return 'array'
}

/**
 * Roots whose name starts so are the sidecar's own records (restore records, review suggestions),
 * not content: history, restore, undo and "Who wrote this" leave them alone.
 */
export const SIDECAR_ROOT_PREFIX = 'e2e-col.'

/** Whether a root holds the document's content (not a record of the sidecar's). */
export const isContentRoot = (name: string): boolean => !name.startsWith(SIDECAR_ROOT_PREFIX)

/** Every content root of `docs` with the kind its items say it holds (the first doc that says wins). */
export function rootKinds(...docs: Y.Doc[]): Map<string, SharedKind> {
  const kinds = new Map<string, SharedKind>()
  for (const doc of docs) {
    const names = new Map<unknown, string>()
    for (const [name, type] of doc.share) if (isContentRoot(name)) names.set(type, name)
    for (const structs of doc.store.clients.values())
      for (const struct of structs) {
        const name = struct instanceof Y.Item ? names.get(struct.parent) : undefined
        if (name === undefined || kinds.has(name)) continue
        const kind = kindOfItem(struct as Y.Item)
        if (kind !== undefined) kinds.set(name, kind)
      }
  }
  return kinds
}

/** The root `name` of `doc` as the shared type of `kind` (an untyped root is typed by this). */
/** A root shared type restore knows how to bring back. */
export type SharedRoot = Y.Text | Y.XmlFragment | Y.Map<unknown> | Y.Array<unknown>

export function rootOf(doc: Y.Doc, name: string, kind: SharedKind): SharedRoot {
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
