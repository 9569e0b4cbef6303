/**
 * The edits this account wrote that its group did not take because it was made a viewer first
 * (decisions/0032): their text per document, kept so its pages can show them, readable and
 * copyable, across restarts. One JSON file beside the replica store, written whole (temporary
 * file, flushed, renamed, folder flushed) before `add` returns. Bounded: at most
 * {@link MAX_NOT_SHARED_BYTES} bytes of text per document; past it the oldest edits go first, and
 * an edit longer than the bound keeps its first bytes (`cut`).
 */
import { join } from 'node:path'
import { keptFile } from '../durable-file.ts'
import { StoreError } from '../errors.ts'

/** Bytes of text (UTF-8) kept per document. */
export const MAX_NOT_SHARED_BYTES = 64 * 1024
/** The file's name in the data folder. */
export const NOT_SHARED_FILE = 'not-shared.json'

/** The role a demotion left this account in: what it may no longer send (roles/roles.ts). */
export type DemotedTo = 'viewer' | 'commenter'

/** A role as a listing gave it to this account (roles/roles.ts), kept to see a demotion made while the sidecar was down. */
export type ListedRole = 'editor' | 'commenter' | 'viewer'

/** Demotions kept per document at most (those the kept edits name, and the newest). */
export const MAX_DEMOTIONS = 32

/** One demotion as this sidecar learned it. */
export interface Demotion {
  /** When this sidecar learned it (ms since the epoch): the `at` of its edits. */
  readonly at: number
  readonly role: DemotedTo
  /** The number of the editor who made the change, when a group update named one (demotion.ts). */
  readonly by?: string
}

/** Why an edit did not reach the group. */
export type NotSharedReason =
  /** Saved by this sidecar, not yet sent when it learned it was a viewer: never sent. */
  | 'unsent'
  /** Sent, but the group's state (an editor's answer) does not hold it: dropped as a viewer's. */
  | 'not-taken'
  /** Typed on a page as the demotion was learned: refused by this sidecar, never acknowledged. */
  | 'refused'

export interface NotSharedEdit {
  readonly reason: NotSharedReason
  readonly text: string
  /** When this sidecar learned it was a viewer or a commenter (ms since the epoch): its {@link Demotion}. */
  readonly at: number
  /** Only the first bytes were kept (the edit alone was over the bound). */
  readonly cut?: true
  /** The Yjs clock ranges (client, from, to) an unsent edit was withheld with. */
  readonly ranges?: readonly (readonly [number, number, number])[]
}

export interface NotSharedBook {
  /** The document's edits that did not reach its group, oldest first. */
  list(docId: string): readonly NotSharedEdit[]
  /**
   * Keeps `edits` in place of the document's edits of the demotion learned at `at` (bounded),
   * durable when this returns. @throws StoreError
   */
  put(docId: string, at: number, edits: readonly NotSharedEdit[]): void
  /** When the demotion whose rejoin is still to do was learned, if one is. */
  rejoinPending(docId: string): number | undefined
  /** Marks the rejoin of the demotion learned at `at` to do (undefined: done), durable when this returns. @throws StoreError */
  setRejoinPending(docId: string, at: number | undefined): void
  /** When the document's replica last rejoined the group's state. */
  rejoinedAt(docId: string): number | undefined
  /** The document's demotions, oldest first (those its edits name, and the newest). */
  demotions(docId: string): readonly Demotion[]
  /** Keeps `d` in place of the document's demotion learned at `d.at`, durable when this returns. @throws StoreError */
  putDemotion(docId: string, d: Demotion): void
  /** The role the document's last listing gave this account, as kept across restarts. */
  lastRole(docId: string): ListedRole | undefined
  /**
   * Keeps the role a listing gave; written with the next write, at the latest one turn of the
   * event loop later (a listing of many documents writes the file once). A role lost to a crash in
   * between reads as not known: the demotion is then settled as if seen for the first time.
   */
  noteRole(docId: string, role: ListedRole): void
}

interface FileShape {
  docs: Record<string, NotSharedEdit[]>
  /** Demotions whose rejoin is to do, by document: when each was learned. */
  rejoin: Record<string, number>
  /** When each document last rejoined. */
  rejoined: Record<string, number>
  /** Each document's demotions, oldest first. */
  demotions: Record<string, Demotion[]>
  /** The role each document's last listing gave this account. */
  roles: Record<string, ListedRole>
}

const utf8 = new TextEncoder()
const bytesOf = (text: string): number => utf8.encode(text).byteLength

/** The first `max` bytes of `text`, never splitting a character. */
function firstBytes(text: string, max: number): string {
  let out = ''
  let n = 0
  for (const ch of text) {
    const b = bytesOf(ch)
    if (n + b > max) break
    out += ch
    n += b
  }
  return out
}

/** `edits` within `max` bytes of text: the newest kept, the oldest dropped first. */
export function bounded(edits: readonly NotSharedEdit[], max = MAX_NOT_SHARED_BYTES): NotSharedEdit[] {
  const kept: NotSharedEdit[] = []
  let total = 0
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i] as NotSharedEdit
    const b = bytesOf(e.text)
    if (total + b <= max) {
      kept.unshift(e)
      total += b
    } else if (kept.length === 0) {
      kept.unshift({ ...e, text: firstBytes(e.text, max), cut: true })
      total = max
    } else break
  }
  return kept
}

const isDemotion = (v: unknown): v is Demotion => {
  const d = v as Partial<Demotion> | null
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.at === 'number' &&
    (d.role === 'viewer' || d.role === 'commenter') &&
    (d.by === undefined || typeof d.by === 'string')
  )
}

/** The demotions worth keeping: those `edits` name, and the newest; at most {@link MAX_DEMOTIONS}. */
function keptDemotions(all: readonly Demotion[], edits: readonly NotSharedEdit[]): Demotion[] {
  const named = new Set(edits.map((e) => e.at))
  const newest = all.at(-1)
  return all.filter((d) => d === newest || named.has(d.at)).slice(-MAX_DEMOTIONS)
}

const isEdit = (v: unknown): v is NotSharedEdit => {
  const e = v as Partial<NotSharedEdit> | null
  return (
    typeof e === 'object' &&
    e !== null &&
    (e.reason === 'unsent' || e.reason === 'not-taken' || e.reason === 'refused') &&
    typeof e.text === 'string' &&
    typeof e.at === 'number'
  )
}

/** The file as read; anything that is not the shape is left out (the file is this sidecar's own). */
function parse(raw: string): FileShape {
  const v = JSON.parse(raw) as {
    docs?: unknown
    rejoin?: unknown
    rejoined?: unknown
    demotions?: unknown
    roles?: unknown
  }
  const docs: Record<string, NotSharedEdit[]> = {}
  if (typeof v.docs === 'object' && v.docs !== null)
    for (const [docId, list] of Object.entries(v.docs as Record<string, unknown>))
      if (Array.isArray(list)) docs[docId] = bounded(list.filter(isEdit))
  const demotions: Record<string, Demotion[]> = {}
  if (typeof v.demotions === 'object' && v.demotions !== null)
    for (const [docId, list] of Object.entries(v.demotions as Record<string, unknown>))
      if (Array.isArray(list)) demotions[docId] = keptDemotions(list.filter(isDemotion), docs[docId] ?? [])
  return { docs, rejoin: times(v.rejoin), rejoined: times(v.rejoined), demotions, roles: roles(v.roles) }
}

const isRole = (v: unknown): v is ListedRole => v === 'editor' || v === 'commenter' || v === 'viewer'

/** A record of document id to role, what is not one left out. */
function roles(v: unknown): Record<string, ListedRole> {
  const out: Record<string, ListedRole> = {}
  if (typeof v === 'object' && v !== null)
    for (const [docId, role] of Object.entries(v as Record<string, unknown>)) if (isRole(role)) out[docId] = role
  return out
}

/** A record of document id to time, what is not one left out. */
function times(v: unknown): Record<string, number> {
  const out: Record<string, number> = {}
  if (typeof v === 'object' && v !== null)
    for (const [docId, at] of Object.entries(v as Record<string, unknown>)) if (typeof at === 'number') out[docId] = at
  return out
}

function read(path: string): FileShape {
  const raw = keptFile(path, 'the edits not shared').read()
  if (raw === undefined) return { docs: {}, rejoin: {}, rejoined: {}, demotions: {}, roles: {} }
  try {
    return parse(raw)
  } catch (error) {
    throw new StoreError(path, 'the edits not shared do not parse; refusing to start over them', { cause: error })
  }
}

function writeShape(path: string, shape: FileShape): void {
  keptFile(path, 'the edits not shared').write(JSON.stringify(shape))
}

/** The book in `dataDir`, read once now. @throws StoreError when the file cannot be read */
export function openNotSharedBook(dataDir: string, now: () => number = Date.now): NotSharedBook {
  const path = join(dataDir, NOT_SHARED_FILE)
  const shape = read(path)
  // A role noted and not yet written: the next write (or one turn later) takes it.
  let rolesDirty = false
  const write = (): void => {
    rolesDirty = false
    writeShape(path, shape)
  }
  return {
    list: (docId) => shape.docs[docId] ?? [],
    put(docId, at, edits) {
      const others = (shape.docs[docId] ?? []).filter((e) => e.at !== at)
      const next = bounded([...others, ...edits])
      if (next.length === 0) delete shape.docs[docId]
      else shape.docs[docId] = next
      const demotions = keptDemotions(shape.demotions[docId] ?? [], next)
      if (demotions.length === 0) delete shape.demotions[docId]
      else shape.demotions[docId] = demotions
      write()
    },
    rejoinPending: (docId) => shape.rejoin[docId],
    setRejoinPending(docId, at) {
      if (at === shape.rejoin[docId]) return
      if (at === undefined) {
        delete shape.rejoin[docId]
        shape.rejoined[docId] = now()
      } else shape.rejoin[docId] = at
      write()
    },
    rejoinedAt: (docId) => shape.rejoined[docId],
    demotions: (docId) => shape.demotions[docId] ?? [],
    putDemotion(docId, d) {
      const others = (shape.demotions[docId] ?? []).filter((x) => x.at !== d.at)
      const all = [...others, d].sort((a, b) => a.at - b.at)
      shape.demotions[docId] = keptDemotions(all, shape.docs[docId] ?? [])
      write()
    },
    lastRole: (docId) => shape.roles[docId],
    noteRole(docId, role) {
      if (shape.roles[docId] === role) return
      shape.roles[docId] = role
      if (rolesDirty) return
      rolesDirty = true
      setImmediate(() => {
        if (!rolesDirty) return
        try {
          write()
        } catch {
          // Kept in memory; the next write takes it (a role not known reads as a first listing).
          rolesDirty = true
        }
      })
    },
  }
}

/** One edit as the pages are shown it: why, and the demotion that kept it from the group. */
export interface NotSharedShown {
  readonly reason: NotSharedReason
  readonly text: string
  readonly at: number
  readonly cut?: true
  /** The role this account was made (a kept edit of a demotion not recorded reads as a viewer's). */
  readonly role: DemotedTo
  /** Who made the change, as this person's contacts tell them apart; absent when no group update named them. */
  readonly by?: string
}

/** What a document's pages are shown (the documents API's `GET /v1/docs/<docId>/not-shared`). */
export interface NotSharedView {
  readonly edits: readonly NotSharedShown[]
  /** The demotion that left this account in the role it has now, when this sidecar learned one. */
  readonly demotion?: { readonly role: DemotedTo; readonly at: number; readonly by?: string }
  /** The replica still has to rejoin the group's state (an editor's whole answer is awaited). */
  readonly rejoinPending: boolean
  /** When the replica last rejoined: a page opened before holds what the group lacks and loads again. */
  readonly rejoinedAt?: number
  /** The bound on the text kept per document, bytes. */
  readonly maxBytes: number
}

/**
 * The document's view for its pages; `self` is this account's role now, `nameOf` the told-apart
 * name of a number (people/told-apart.ts), so no number is shown where a name is known.
 */
export function notSharedView(
  book: NotSharedBook,
  docId: string,
  self: string,
  nameOf: (number: string) => string,
): NotSharedView {
  const rejoinedAt = book.rejoinedAt(docId)
  const demotions = new Map(book.demotions(docId).map((d) => [d.at, d]))
  const by = (d: Demotion | undefined) => (d?.by === undefined ? {} : { by: nameOf(d.by) })
  const edits = book.list(docId).map((e): NotSharedShown => {
    const d = demotions.get(e.at)
    return {
      reason: e.reason,
      text: e.text,
      at: e.at,
      ...(e.cut === true ? { cut: true } : {}),
      role: d?.role ?? 'viewer',
      ...by(d),
    }
  })
  const newest = book.demotions(docId).at(-1)
  return {
    edits,
    ...(newest !== undefined && newest.role === self
      ? { demotion: { role: newest.role, at: newest.at, ...by(newest) } }
      : {}),
    rejoinPending: book.rejoinPending(docId) !== undefined,
    ...(rejoinedAt === undefined ? {} : { rejoinedAt }),
    maxBytes: MAX_NOT_SHARED_BYTES,
  }
}
