/**
 * The open batch of the approval from the phone, kept across restarts: the list the person's
 * phone shows is what "accept 1" refers to, so it must outlive a restart or a crash of the
 * sidecar between the list and the reply. One small JSON file beside the store (durable-file.ts),
 * written before the list is sent. Read back strictly: a file that does not parse, or holds more
 * than a batch may, is no batch (the suggestions themselves are in their document; only the
 * numbering is lost).
 */
import { REVIEW_LIMITS } from '@e2e-col/review'
import { z } from 'zod'

/** The file's name in the data folder. */
export const APPROVAL_FILE = 'approval.json'

export interface KeptItem {
  readonly id: string
  readonly find: string
  readonly replace: string
  readonly note?: string | undefined
}
export interface KeptBatch {
  readonly docId: string
  readonly title: string | undefined
  readonly items: readonly KeptItem[]
}

/** Where the batch lives (a file in production, memory in unit tests). */
export interface BatchFile {
  /** The file's text, undefined when there is none. @throws on a read failure */
  read(): string | undefined
  /** Replaces the file, durable when this returns. @throws on a write failure */
  write(text: string): void
}

const bytes = (max: number) => z.string().refine((s) => new TextEncoder().encode(s).byteLength <= max)
/** Bytes of a kept title: more than any document's title (the list shows 80 characters of it). */
const TITLE_BYTES = 4096
const fileSchema = (maxItems: number) =>
  z.object({
    v: z.literal(1),
    docId: z.string().uuid(),
    title: bytes(TITLE_BYTES).optional(),
    items: z
      .array(
        z.object({
          id: z.string().regex(/^[0-9a-z]{8,32}$/),
          find: bytes(REVIEW_LIMITS.maxQuoteBytes),
          replace: bytes(REVIEW_LIMITS.maxQuoteBytes),
          note: bytes(REVIEW_LIMITS.maxNoteBytes).optional(),
        }),
      )
      .max(maxItems),
  })

/** The file's text for `batch`. */
export function encodeBatch(batch: KeptBatch): string {
  const items = batch.items.map(({ id, find, replace, note }) => ({
    id,
    find,
    replace,
    ...(note === undefined ? {} : { note }),
  }))
  return JSON.stringify({
    v: 1,
    docId: batch.docId,
    ...(batch.title === undefined ? {} : { title: batch.title }),
    items,
  })
}

/** The batch `text` holds; undefined when it holds none that this version reads (or over `maxItems` items). */
export function decodeBatch(text: string, maxItems: number): KeptBatch | undefined {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  const r = fileSchema(maxItems).safeParse(json)
  return r.success ? { docId: r.data.docId, title: r.data.title, items: r.data.items } : undefined
}
