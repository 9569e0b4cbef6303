/**
 * The acceptances this sidecar wrote itself, per document and suggestion: the insertion each made
 * (under a client id minted for it, from which clock, how long). Settling concurrent decisions
 * (concurrent-decisions.ts) acts on these only: never on an id another device of the account, a
 * page, or a member relaying content wrote under this account's tag. One JSON file beside the
 * store (durable-file.ts), written before the acceptance is applied. Bounded: the newest
 * {@link ACCEPTANCES_KEPT} in all; an older one is not settled any more.
 */
import type { InsertedRange } from '@e2e-col/review'
import { z } from 'zod'

/** The file's name in the data folder. */
export const OWN_ACCEPTANCES_FILE = 'own-acceptances.json'
/** Acceptances kept, the newest. */
export const ACCEPTANCES_KEPT = 2048

/** Where the list lives (a file in production, memory in unit tests). */
export interface AcceptancesFile {
  /** The file's text, undefined when there is none. @throws on a read failure */
  read(): string | undefined
  /** Replaces the file, durable when this returns. @throws on a write failure */
  write(text: string): void
}

export interface OwnAcceptances {
  /** Keeps this sidecar's acceptance of `suggestionId`, durable when this returns. @throws on a write failure */
  record(docId: string, suggestionId: string, applied: InsertedRange): void
  /** The insertion this sidecar's acceptance of `suggestionId` made, if it made one. */
  mine(docId: string, suggestionId: string): InsertedRange | undefined
  /** The suggestions of `docId` this sidecar accepted (the newest kept). */
  suggestions(docId: string): string[]
}

type Row = [docId: string, suggestionId: string, client: number, clock: number, len: number]
const nat = z.number().int().nonnegative()
const RowsSchema = z.array(z.tuple([z.string().max(64), z.string().max(64), nat, nat, nat]))

/** The rows `text` holds, none when it does not read (only the settling of older acceptances is lost). */
function rowsOf(text: string | undefined): Row[] {
  if (text === undefined) return []
  try {
    const r = RowsSchema.safeParse(JSON.parse(text))
    return r.success ? r.data.slice(-ACCEPTANCES_KEPT) : []
  } catch {
    return []
  }
}

/** The rows by document and suggestion (a later row of the same suggestion wins). */
function indexOf(rows: readonly Row[]): Map<string, Map<string, InsertedRange>> {
  const byDoc = new Map<string, Map<string, InsertedRange>>()
  for (const [docId, sid, client, clock, len] of rows) {
    let of = byDoc.get(docId)
    if (of === undefined) byDoc.set(docId, (of = new Map()))
    of.set(sid, { client, clock, len })
  }
  return byDoc
}

export function openOwnAcceptances(file: AcceptancesFile): OwnAcceptances {
  let rows = rowsOf(file.read())
  let index = indexOf(rows)
  return {
    record(docId, suggestionId, a) {
      const next = [...rows, [docId, suggestionId, a.client, a.clock, a.len] as Row].slice(-ACCEPTANCES_KEPT)
      file.write(JSON.stringify(next))
      rows = next
      index = indexOf(rows)
    },
    mine: (docId, suggestionId) => index.get(docId)?.get(suggestionId),
    suggestions: (docId) => [...(index.get(docId)?.keys() ?? [])],
  }
}
