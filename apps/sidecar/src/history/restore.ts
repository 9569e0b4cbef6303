/**
 * The change that makes a document equal to one of its versions, kept as small as a diff can make
 * it: text is diffed (diff-match-patch) and only the differing runs are deleted, inserted or
 * re-formatted; a map changes only the keys that differ; an XML fragment or array keeps the
 * children that are equal, descends into a changed child of the same kind, and replaces only the
 * rest. Pure: it works on a copy of the document and answers the Yjs update, which the caller
 * applies and sends like any edit (concurrent edits then merge as Yjs merges any two edits).
 * @see docs/documents.md "History"
 */
import DiffMatchPatch from 'diff-match-patch'
import * as Y from 'yjs'
import { rootKinds, rootOf, type SharedKind, type SharedRoot } from './shared-kinds.ts'

type Attrs = Record<string, unknown>
/** One unit of a text: a UTF-16 code unit of a string, or an embed, with its formatting. */
interface Unit {
  readonly ch: string
  readonly embed?: unknown
  readonly attrs: Attrs
}
interface DeltaOp {
  insert?: unknown
  attributes?: Attrs
}

// An embed compares as this one character, so the text diff sees it as one unit.
const EMBED = '\uFFFC'
const dmp = new DiffMatchPatch()
// Text is diffed line by line first (diff_main's checkLines), then within the changed lines; on the
// paper trace's 100 000 characters the finer search after 0.1 s found nothing smaller (bench §10).
dmp.Diff_Timeout = 0.1

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

function unitsOf(text: Y.Text): Unit[] {
  const units: Unit[] = []
  for (const op of text.toDelta() as DeltaOp[]) {
    const attrs = op.attributes ?? {}
    if (typeof op.insert === 'string') for (const ch of op.insert.split('')) units.push({ ch, attrs })
    else if (op.insert instanceof Y.AbstractType) continue // types in text are not restored here
    else units.push({ ch: EMBED, embed: op.insert, attrs })
  }
  return units
}

function insertUnits(text: Y.Text, at: number, units: readonly Unit[]): void {
  let pos = at
  let run = ''
  let runAttrs: Attrs = {}
  const flush = () => {
    if (run === '') return
    text.insert(pos, run, { ...runAttrs })
    pos += run.length
    run = ''
  }
  for (const u of units) {
    if (u.embed !== undefined) {
      flush()
      text.insertEmbed(pos, u.embed as object, { ...u.attrs })
      pos += 1
      continue
    }
    if (run !== '' && !same(runAttrs, u.attrs)) flush()
    if (run === '') runAttrs = u.attrs
    run += u.ch
  }
  flush()
}

/** Sets the formatting of `cur` to that of `want`, run by run (their characters are equal). */
function syncFormatting(cur: Y.Text, want: readonly Unit[]): void {
  const have = unitsOf(cur)
  let start = 0
  while (start < want.length) {
    const patch = formatPatch(have[start]?.attrs ?? {}, want[start]?.attrs ?? {})
    let end = start + 1
    while (end < want.length && same(formatPatch(have[end]?.attrs ?? {}, want[end]?.attrs ?? {}), patch)) end++
    if (patch !== undefined) cur.format(start, end - start, patch)
    start = end
  }
}

/** The attributes to set so that `have` becomes `want` (null removes), undefined when equal. */
function formatPatch(have: Attrs, want: Attrs): Attrs | undefined {
  const patch: Attrs = {}
  for (const [k, v] of Object.entries(want)) if (!same(have[k], v)) patch[k] = v
  for (const k of Object.keys(have)) if (!(k in want)) patch[k] = null
  return Object.keys(patch).length === 0 ? undefined : patch
}

export function syncText(cur: Y.Text, want: Y.Text): void {
  const wantUnits = unitsOf(want)
  const curUnits = unitsOf(cur)
  const hasFormatting = curUnits.some((u) => Object.keys(u.attrs).length > 0)
  const a = curUnits.map((u) => u.ch).join('')
  const b = wantUnits.map((u) => u.ch).join('')
  let i = 0
  let j = 0
  for (const [op, s] of dmp.diff_main(a, b, true)) {
    if (op === 0) {
      i += s.length
      j += s.length
    } else if (op === -1) cur.delete(i, s.length)
    else {
      insertUnits(cur, i, wantUnits.slice(j, j + s.length))
      i += s.length
      j += s.length
    }
  }
  // Plain text on both sides (a code editor's Y.Text): no formatting to compare, unit by unit.
  if (hasFormatting || wantUnits.some((u) => Object.keys(u.attrs).length > 0)) syncFormatting(cur, wantUnits)
}

function syncAttributes(cur: Y.XmlElement, want: Y.XmlElement): void {
  const have = cur.getAttributes() as Attrs
  const next = want.getAttributes() as Attrs
  for (const k of Object.keys(have)) if (!(k in next)) cur.removeAttribute(k)
  for (const [k, v] of Object.entries(next)) if (!same(have[k], v)) cur.setAttribute(k, v as string)
}

/** A value to insert in place of `v`: a shared type is copied (one type has one parent). */
const copyOf = (v: unknown): unknown => (v instanceof Y.AbstractType ? v.clone() : v)

/** A key that is equal for equal children (a type by its whole content). */
function keyOf(v: unknown): string {
  if (v instanceof Y.XmlElement) return `<${v.nodeName}>${v.toString()}`
  if (v instanceof Y.XmlText) return `#text${JSON.stringify(v.toDelta())}`
  if (v instanceof Y.AbstractType) return `${v.constructor.name}${JSON.stringify(v.toJSON())}`
  return `=${JSON.stringify(v instanceof Uint8Array ? [...v] : v)}`
}

/** Brings a changed child in place to `want` when both are the same kind; false when they are not. */
function syncChild(cur: unknown, want: unknown): boolean {
  if (cur instanceof Y.XmlElement && want instanceof Y.XmlElement) {
    if (cur.nodeName !== want.nodeName) return false
    syncAttributes(cur, want)
    syncSequence(cur, want)
    return true
  }
  if (cur instanceof Y.XmlText && want instanceof Y.XmlText) return (syncText(cur, want), true)
  if (cur instanceof Y.XmlFragment || want instanceof Y.XmlFragment) return false
  if (cur instanceof Y.Text && want instanceof Y.Text) return (syncText(cur, want), true)
  if (cur instanceof Y.Map && want instanceof Y.Map) return (syncMap(cur, want), true)
  if (cur instanceof Y.Array && want instanceof Y.Array) return (syncSequence(cur, want), true)
  return false
}

type Sequence = Y.Array<unknown> | Y.XmlFragment

/**
 * Children diffed as a string with one character per distinct child (up to the private-use area's
 * 6,400; beyond, the longest common prefix and suffix are kept).
 */
export function syncSequence(cur: Sequence, want: Sequence): void {
  const have = cur.toArray() as unknown[]
  const next = want.toArray() as unknown[]
  const codes = new Map<string, string>()
  const code = (v: unknown): string => {
    const k = keyOf(v)
    let c = codes.get(k)
    if (c === undefined) {
      c = codes.size < 6400 ? String.fromCharCode(0xe000 + codes.size) : '\uF8FF'
      codes.set(k, c)
    }
    return c
  }
  const a = have.map(code).join('')
  const b = next.map(code).join('')
  const diffs = codes.size < 6400 ? dmp.diff_main(a, b, false) : prefixSuffix(a, b)
  let i = 0
  let j = 0
  for (let d = 0; d < diffs.length; d++) {
    const [op, s] = diffs[d] as [number, string]
    if (op === 0) {
      i += s.length
      j += s.length
      continue
    }
    if (op === 1) {
      cur.insert(i, next.slice(j, j + s.length).map(copyOf) as never[])
      i += s.length
      j += s.length
      continue
    }
    // A deletion followed by an insertion: children of the same kind are changed in place.
    const following = diffs[d + 1]
    const added = following?.[0] === 1 ? following[1].length : 0
    let k = 0
    while (k < Math.min(s.length, added) && syncChild(cur.get(i + k), next[j + k])) k++
    if (k > 0) {
      i += k
      j += k
      if (k === added) d++
      else diffs[d + 1] = [1, 'x'.repeat(added - k)]
    }
    if (s.length > k) cur.delete(i, s.length - k)
  }
}

function prefixSuffix(a: string, b: string): [-1 | 0 | 1, string][] {
  let p = 0
  while (p < a.length && p < b.length && a[p] === b[p]) p++
  let q = 0
  while (q < a.length - p && q < b.length - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++
  return [
    [0, a.slice(0, p)],
    [-1, a.slice(p, a.length - q)],
    [1, b.slice(p, b.length - q)],
    [0, a.slice(a.length - q)],
  ]
}

export function syncMap(cur: Y.Map<unknown>, want: Y.Map<unknown>): void {
  for (const k of Array.from(cur.keys())) if (!want.has(k)) cur.delete(k)
  for (const [k, v] of want.entries()) {
    const have = cur.get(k)
    if (cur.has(k) && keyOf(have) === keyOf(v)) continue
    if (!syncChild(have, v)) cur.set(k, copyOf(v))
  }
}

function syncRoot(cur: SharedRoot, want: SharedRoot, kind: SharedKind): void {
  if (kind === 'text') syncText(cur as Y.Text, want as Y.Text)
  else if (kind === 'map') syncMap(cur as Y.Map<unknown>, want as Y.Map<unknown>)
  else syncSequence(cur as Sequence, want as Sequence)
}

/**
 * The Yjs update that turns `current` into the content of `version` (a Yjs update holding the
 * version's whole state). `current` is not changed. The update is made by a fresh client id:
 * `clientId` when given (one made from the account's author tag, decisions/0023), else Yjs's own.
 */
export function restoreChange(current: Y.Doc, version: Uint8Array, clientId?: number): Uint8Array {
  const work = new Y.Doc()
  if (clientId !== undefined) work.clientID = clientId
  Y.applyUpdate(work, Y.encodeStateAsUpdate(current))
  const target = new Y.Doc()
  Y.applyUpdate(target, version)
  const kinds = rootKinds(target, work)
  const before = Y.encodeStateVector(work)
  work.transact(() => {
    for (const [name, kind] of kinds) syncRoot(rootOf(work, name, kind), rootOf(target, name, kind), kind)
  })
  return Y.encodeStateAsUpdate(work, before)
}
