/**
 * The edits this account wrote that its group did not take because it was made a viewer first
 * (decisions/0032): their text per document, kept so its pages can show them, readable and
 * copyable, across restarts. One JSON file beside the replica store, written whole (temporary
 * file, flushed, renamed, folder flushed) before `add` returns. Bounded: at most
 * {@link MAX_NOT_SHARED_BYTES} bytes of text per document; past it the oldest edits go first, and
 * an edit longer than the bound keeps its first bytes (`cut`).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { StoreError } from '../errors.ts'

/** Bytes of text (UTF-8) kept per document. */
export const MAX_NOT_SHARED_BYTES = 64 * 1024
/** The file's name in the data folder. */
export const NOT_SHARED_FILE = 'not-shared.json'

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
  /** When this sidecar learned it was a viewer (ms since the epoch). */
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
}

interface FileShape {
  docs: Record<string, NotSharedEdit[]>
  /** Demotions whose rejoin is to do, by document: when each was learned. */
  rejoin: Record<string, number>
  /** When each document last rejoined. */
  rejoined: Record<string, number>
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
  const v = JSON.parse(raw) as { docs?: unknown; rejoin?: unknown; rejoined?: unknown }
  const docs: Record<string, NotSharedEdit[]> = {}
  if (typeof v.docs === 'object' && v.docs !== null)
    for (const [docId, list] of Object.entries(v.docs as Record<string, unknown>))
      if (Array.isArray(list)) docs[docId] = bounded(list.filter(isEdit))
  return { docs, rejoin: times(v.rejoin), rejoined: times(v.rejoined) }
}

/** A record of document id to time, what is not one left out. */
function times(v: unknown): Record<string, number> {
  const out: Record<string, number> = {}
  if (typeof v === 'object' && v !== null)
    for (const [docId, at] of Object.entries(v as Record<string, unknown>)) if (typeof at === 'number') out[docId] = at
  return out
}

function read(path: string): FileShape {
  let raw: string
  try {
    raw = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return { docs: {}, rejoin: {}, rejoined: {} }
    throw new StoreError(path, 'cannot read the edits not shared', { cause: error })
  }
  try {
    return parse(raw)
  } catch (error) {
    throw new StoreError(path, 'the edits not shared do not parse; refusing to start over them', { cause: error })
  }
}

function writeDurably(path: string, shape: FileShape): void {
  const tmp = `${path}.tmp`
  try {
    writeFileSync(tmp, JSON.stringify(shape))
    const fd = openSync(tmp, 'r+')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
    const dir = openSync(dirname(path), 'r')
    try {
      fsyncSync(dir)
    } finally {
      closeSync(dir)
    }
  } catch (error) {
    throw new StoreError(path, 'cannot write the edits not shared', { cause: error })
  }
}

/** The book in `dataDir`, read once now. @throws StoreError when the file cannot be read */
export function openNotSharedBook(dataDir: string, now: () => number = Date.now): NotSharedBook {
  const path = join(dataDir, NOT_SHARED_FILE)
  const shape = read(path)
  return {
    list: (docId) => shape.docs[docId] ?? [],
    put(docId, at, edits) {
      const others = (shape.docs[docId] ?? []).filter((e) => e.at !== at)
      const next = bounded([...others, ...edits])
      if (next.length === 0) delete shape.docs[docId]
      else shape.docs[docId] = next
      writeDurably(path, shape)
    },
    rejoinPending: (docId) => shape.rejoin[docId],
    setRejoinPending(docId, at) {
      if (at === shape.rejoin[docId]) return
      if (at === undefined) {
        delete shape.rejoin[docId]
        shape.rejoined[docId] = now()
      } else shape.rejoin[docId] = at
      writeDurably(path, shape)
    },
    rejoinedAt: (docId) => shape.rejoined[docId],
  }
}

/** What a document's pages are shown (the documents API's `GET /v1/docs/<docId>/not-shared`). */
export interface NotSharedView {
  readonly edits: readonly NotSharedEdit[]
  /** The replica still has to rejoin the group's state (an editor's whole answer is awaited). */
  readonly rejoinPending: boolean
  /** When the replica last rejoined: a page opened before holds what the group lacks and loads again. */
  readonly rejoinedAt?: number
  /** The bound on the text kept per document, bytes. */
  readonly maxBytes: number
}

export function notSharedView(book: NotSharedBook, docId: string): NotSharedView {
  const rejoinedAt = book.rejoinedAt(docId)
  return {
    edits: book.list(docId),
    rejoinPending: book.rejoinPending(docId) !== undefined,
    ...(rejoinedAt === undefined ? {} : { rejoinedAt }),
    maxBytes: MAX_NOT_SHARED_BYTES,
  }
}
