/**
 * "Who wrote this", the part both editor pages share: what the sidecar says of each Yjs client id
 * (`GET /v1/docs/<docId>/authors`), how a page names it (verified, or saying it is not), and the
 * runs of text each client id wrote, read from the Yjs items of a text type.
 * @see docs/documents.md "Who wrote this"
 */
import * as Y from 'yjs'
import { apiBase } from '../docs-client.ts'
import { colourFor } from './presence.ts'

/** One client id as the sidecar answers it: its author when verified, else who relayed its text. */
export interface AuthorView {
  readonly verified: boolean
  readonly number?: string | null
  readonly name?: string | null
  /** This page's own account. */
  readonly you?: boolean
  readonly relayedBy?: { readonly number: string | null; readonly name: string | null }
  /** A restore's letters: the time (ms since 1970) of the version they were restored from. */
  readonly restoredFrom?: number
}

/** How a page shows an author: the label on marked text, its colour, and whether it is verified. */
export interface AuthorLabel {
  readonly label: string
  readonly colour: string
  readonly verified: boolean
}

/** A run of text one client id wrote, in the type's index space `[from, to)`. */
export interface AuthorRun {
  readonly from: number
  readonly to: number
  readonly client: number
}

/** The item shape runs are read from (Y.Item's fields). */
interface YItemLike {
  readonly deleted: boolean
  readonly countable: boolean
  readonly length: number
  readonly id: { readonly client: number }
  readonly right: YItemLike | null
}

const personName = (p: { readonly number?: string | null; readonly name?: string | null }): string =>
  p.name ?? p.number ?? 'someone'

/** A version's time as the page reads it: the hour, minute and second, local time. */
export const versionTime = (ms: number): string =>
  new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })

/**
 * The label of client id `view` (undefined: the sidecar knows nothing of it yet). A restore's
 * letters are the restorer's writing of an older version, and say so.
 */
export function authorLabel(view: AuthorView | undefined, timeOf = versionTime): AuthorLabel {
  if (view === undefined) return { label: 'unknown author (not verified)', colour: '#888888', verified: false }
  const from = view.restoredFrom === undefined ? '' : ` from the version of ${timeOf(view.restoredFrom)}`
  if (!view.verified) {
    const by = personName(view.relayedBy ?? {})
    const what = from === '' ? 'relayed' : `restored${from}, relayed`
    return { label: `not verified: ${what} by ${by}`, colour: '#888888', verified: false }
  }
  const name = personName(view)
  // This account's own text: its listing often has no name for itself, and "You" is what a person reads.
  const who = view.you === true ? 'You' : name
  const label = from === '' ? who : `restored by ${who}${from}`
  return { label, colour: colourFor(name), verified: true }
}

/**
 * The first item of a Yjs text type, found through the document's struct store (public fields):
 * the one item of this type with nothing on its left. Yjs has no public accessor for it.
 */
function firstItem(type: Y.Text | Y.XmlText): YItemLike | null {
  for (const structs of type.doc?.store.clients.values() ?? [])
    for (const struct of structs)
      if (struct instanceof Y.Item && struct.parent === type && struct.parentSub === null && struct.left === null)
        return struct
  return null
}

/** The runs of live text in a Yjs text type, adjacent runs of one client merged. */
export function runsOf(type: Y.Text | Y.XmlText): AuthorRun[] {
  const runs: AuthorRun[] = []
  let at = 0
  for (let item = firstItem(type); item !== null; item = item.right) {
    if (item.deleted || !item.countable) continue
    const last = runs.at(-1)
    if (last !== undefined && last.client === item.id.client && last.to === at)
      runs[runs.length - 1] = { ...last, to: at + item.length }
    else runs.push({ from: at, to: at + item.length, client: item.id.client })
    at += item.length
  }
  return runs
}

/** Reads the document's authors from the page's sidecar; an empty map when it does not answer. */
export async function fetchAuthors(sidecarUrl: string, docId: string): Promise<Map<number, AuthorView>> {
  try {
    const res = await fetch(`${apiBase(sidecarUrl)}/v1/docs/${docId}/authors`)
    if (!res.ok) return new Map()
    const { authors } = (await res.json()) as { authors: Record<string, AuthorView> }
    return new Map(Object.entries(authors).map(([id, view]) => [Number(id), view]))
  } catch {
    return new Map()
  }
}
