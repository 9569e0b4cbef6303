/**
 * The change that makes a document equal to one of its versions by writing the version anew: each
 * root that differs has its content deleted wholesale and the version's content inserted as new
 * items (text with its formatting, elements and nested types as copies), under the restorer's own
 * client id. A restore so reuses nobody's letters: what it brings back is the restorer's writing,
 * and an undo of someone else after it (revert.ts) knows which letters it re-created. Pure: it
 * works on a copy of the document and answers the Yjs update, which the caller applies and sends
 * like any edit (an edit made concurrently elsewhere merges as Yjs merges any two edits: kept,
 * beside the restored content).
 * @see docs/documents.md "History", docs/decisions/0031-restore-writes-anew.md
 */
import * as Y from 'yjs'
import { writeRestoreRecord } from './restore-record.ts'
import { restoredSpans } from './restored-letters.ts'
import { rootKinds, rootOf, type SharedKind, type SharedRoot } from './shared-kinds.ts'

type Attrs = Record<string, unknown>
/** A run of text with one formatting, or an embed. */
interface DeltaOp {
  insert?: unknown
  attributes?: Attrs
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** A text's runs and embeds (types inside a text are not restored). */
const deltaOf = (text: Y.Text): DeltaOp[] =>
  (text.toDelta() as DeltaOp[]).filter((op) => !(op.insert instanceof Y.AbstractType))

function writeText(cur: Y.Text, want: Y.Text): void {
  const ops = deltaOf(want)
  if (same(deltaOf(cur), ops)) return
  cur.delete(0, cur.length)
  let at = 0
  for (const op of ops) {
    const attrs = { ...op.attributes }
    if (typeof op.insert === 'string') {
      cur.insert(at, op.insert, attrs)
      at += op.insert.length
    } else {
      cur.insertEmbed(at, op.insert as object, attrs)
      at += 1
    }
  }
}

/** A value to insert in place of `v`: a shared type is copied (one type has one parent). */
const copyOf = (v: unknown): unknown => (v instanceof Y.AbstractType ? v.clone() : v)

/** A shared type's kind by its class, not by the class's name (a bundle renames classes). */
function typeName(v: Y.AbstractType<unknown>): string {
  if (v instanceof Y.XmlHook) return 'hook'
  if (v instanceof Y.Map) return 'map'
  if (v instanceof Y.Array) return 'array'
  if (v instanceof Y.Text) return 'text'
  return v instanceof Y.XmlFragment ? 'fragment' : 'type'
}

/** A key that is equal for equal content (a type by its whole content). */
function keyOf(v: unknown): string {
  if (v instanceof Y.XmlElement) return `<${v.nodeName}>${v.toString()}`
  if (v instanceof Y.XmlText) return `#text${JSON.stringify(v.toDelta())}`
  if (v instanceof Y.AbstractType) return `${typeName(v)}${JSON.stringify(v.toJSON())}`
  return `=${JSON.stringify(v instanceof Uint8Array ? [...v] : v)}`
}

type Sequence = Y.Array<unknown> | Y.XmlFragment

function writeSequence(cur: Sequence, want: Sequence): void {
  const next = want.toArray() as unknown[]
  if (same((cur.toArray() as unknown[]).map(keyOf), next.map(keyOf))) return
  cur.delete(0, cur.length)
  cur.insert(0, next.map(copyOf) as never[])
}

function writeMap(cur: Y.Map<unknown>, want: Y.Map<unknown>): void {
  for (const k of Array.from(cur.keys())) if (!want.has(k)) cur.delete(k)
  for (const [k, v] of want.entries()) if (!cur.has(k) || keyOf(cur.get(k)) !== keyOf(v)) cur.set(k, copyOf(v))
}

function writeRoot(cur: SharedRoot, want: SharedRoot, kind: SharedKind): void {
  if (kind === 'text') writeText(cur as Y.Text, want as Y.Text)
  else if (kind === 'map') writeMap(cur as Y.Map<unknown>, want as Y.Map<unknown>)
  else writeSequence(cur as Sequence, want as Sequence)
}

/**
 * The Yjs update that turns `current` into the content of `version` (a Yjs update holding the
 * version's whole state, of `versionAt`), written under `clientId` when given (one made from the
 * account's author tag, decisions/0023), else Yjs's own. It carries the restore's record
 * (restore-record.ts): which letters it re-created, for every member's undo. `current` is not changed.
 */
export function restoreChange(current: Y.Doc, version: Uint8Array, clientId?: number, versionAt = 0): Uint8Array {
  const work = new Y.Doc()
  if (clientId !== undefined) work.clientID = clientId
  Y.applyUpdate(work, Y.encodeStateAsUpdate(current))
  const target = new Y.Doc()
  Y.applyUpdate(target, version)
  const kinds = rootKinds(target, work)
  const before = Y.encodeStateVector(work)
  work.transact(() => {
    for (const [name, kind] of kinds) writeRoot(rootOf(work, name, kind), rootOf(target, name, kind), kind)
  })
  // A restore that wrote something is recorded (one with over a hundred thousand runs stands unrecorded).
  if (work.store.clients.has(work.clientID))
    writeRestoreRecord(work, versionAt, restoredSpans(target, work, work.clientID, kinds))
  return Y.encodeStateAsUpdate(work, before)
}
