/**
 * The words a change inserted, read from a Yjs update without applying it: what a person is shown
 * of their own edits the group did not take. Pure: bytes in, text out. Formatting, embeds and
 * deletions carry no text of their own and are not shown (a deletion the group lacks simply did
 * not happen for it).
 */
import * as Y from 'yjs'

/** One run of inserted text by one client, in clock order. */
export interface TextRun {
  readonly client: number
  readonly clock: number
  readonly text: string
}

const textOfContent = (content: unknown): string | undefined => {
  const str = (content as { str?: unknown } | null)?.str
  return typeof str === 'string' ? str : undefined
}

/**
 * The runs of text `update` inserts, adjacent inserts of one client joined; `keep` chooses the
 * structs (by client and clock) whose text is read. An update that does not decode reads as none.
 */
export function insertedRuns(
  update: Uint8Array,
  keep: (client: number, clock: number) => boolean = () => true,
): TextRun[] {
  let structs: ReturnType<typeof Y.decodeUpdate>['structs']
  try {
    structs = Y.decodeUpdate(update).structs
  } catch {
    return []
  }
  const runs: { client: number; clock: number; end: number; text: string }[] = []
  for (const s of structs) {
    if (!(s instanceof Y.Item) || !keep(s.id.client, s.id.clock)) continue
    const text = textOfContent(s.content)
    if (text === undefined || text === '') continue
    const last = runs.at(-1)
    if (last !== undefined && last.client === s.id.client && last.end === s.id.clock) {
      last.text += text
      last.end += s.length
    } else runs.push({ client: s.id.client, clock: s.id.clock, end: s.id.clock + s.length, text })
  }
  return runs.map(({ client, clock, text }) => ({ client, clock, text }))
}

/** The text `update` inserts, runs apart joined by a line break. */
export const insertedText = (update: Uint8Array, keep?: (client: number, clock: number) => boolean): string =>
  insertedRuns(update, keep)
    .map((r) => r.text)
    .join('\n')

/** The clock ranges an update holds, as (client, from, to) triples. */
export type ClockRanges = readonly (readonly [number, number, number])[]

/** The clock ranges of `update`'s structs (none when it does not decode). */
export function rangesOf(update: Uint8Array): [number, number, number][] {
  try {
    return Y.decodeUpdate(update).structs.map((s) => [s.id.client, s.id.clock, s.id.clock + s.length])
  } catch {
    return []
  }
}

export const inRanges = (ranges: ClockRanges, client: number, clock: number): boolean =>
  ranges.some(([c, from, to]) => c === client && clock >= from && clock < to)

/** Each type's first item (the one with nothing to its left), read from the document's structs. */
function firstItems(doc: Y.Doc): Map<unknown, Y.Item> {
  const first = new Map<unknown, Y.Item>()
  for (const structs of doc.store.clients.values())
    for (const s of structs) if (s instanceof Y.Item && s.left === null) first.set(s.parent, s)
  return first
}

/** Walks a type's items in document order, nested types included. */
function walk(type: unknown, first: Map<unknown, Y.Item>, visit: (item: Y.Item) => void): void {
  for (let item = first.get(type); item !== undefined && item !== null; item = item.right ?? undefined) {
    visit(item)
    const nested = (item.content as { type?: unknown }).type
    if (nested !== undefined) walk(nested, first, visit)
  }
}

/**
 * The visible text of `doc` written at the clocks `keep` chooses, in document order (as the person
 * reads it), one run per stretch not interrupted by other text; each run named by its first
 * character's client and clock.
 */
export function textIn(doc: Y.Doc, keep: (client: number, clock: number) => boolean): TextRun[] {
  const runs: { client: number; clock: number; text: string }[] = []
  let open = false
  const first = firstItems(doc)
  for (const type of doc.share.values())
    walk(type, first, (item) => {
      const str = textOfContent(item.content)
      if (item.deleted || str === undefined) {
        if (!item.deleted) open = false
        return
      }
      for (let i = 0; i < str.length; i++) {
        const clock = item.id.clock + i
        if (!keep(item.id.client, clock)) {
          open = false
          continue
        }
        const last = runs.at(-1)
        if (open && last !== undefined) last.text += str[i]
        else runs.push({ client: item.id.client, clock, text: str[i] as string })
        open = true
      }
    })
  return runs
}
