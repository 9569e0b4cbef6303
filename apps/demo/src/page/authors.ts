/**
 * "Who wrote this", the part both editor pages share: what the sidecar says of each Yjs client id
 * (`GET /v1/docs/<docId>/authors`), how a page names it (verified, or saying it is not), and the
 * runs of text each client id wrote, read from the Yjs items of a text type.
 * @see docs/documents.md "Who wrote this"
 */
import type { AcceptedSpan } from '@e2e-col/review'
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
  /** The accepted suggestion these letters are (its suggester is credited, decision 0034). */
  readonly credit?: AcceptedSpan
}

/** The item shape runs are read from (Y.Item's fields). */
interface YItemLike {
  readonly deleted: boolean
  readonly countable: boolean
  readonly length: number
  readonly id: { readonly client: number; readonly clock: number }
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

/** Who made a suggestion, in words: its writer's name, and the agent's label when an agent made it. */
export function suggesterOf(
  s: { readonly writer: number; readonly entry: { readonly agent?: string } },
  authors: ReadonlyMap<number, AuthorView>,
): { by: string; colour: string } {
  const person = authorLabel(authors.get(s.writer))
  const agent = s.entry.agent
  if (agent === undefined) return { by: person.label, colour: person.colour }
  const forWhom = person.label === 'You' ? 'you' : person.label
  return { by: `${agent}, for ${forWhom}`, colour: colourFor(agent) }
}

/**
 * The label of an accepted suggestion's letters: its suggester, and who accepted it ("Claude, for
 * Alice, accepted by Bob"); verified only when both are.
 */
export function creditLabel(credit: AcceptedSpan, authors: ReadonlyMap<number, AuthorView>): AuthorLabel {
  const { by, colour } = suggesterOf(credit.suggestion, authors)
  const decider = authorLabel(authors.get(credit.suggestion.decidedBy))
  const accepter = decider.label === 'You' ? 'you' : decider.label
  const verified = authorLabel(authors.get(credit.suggestion.writer)).verified && decider.verified
  return { label: `${by}, accepted by ${accepter}`, colour, verified }
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

/** An item's letters cut where an accepted suggestion's range starts or ends: `[offset, length, credit]`. */
function piecesOf(item: YItemLike, spans: readonly AcceptedSpan[]): [number, number, AcceptedSpan | undefined][] {
  const { client, clock } = item.id
  const end = clock + item.length
  const cuts = new Set([clock, end])
  const mine = spans.filter((s) => s.client === client && s.clock < end && s.clock + s.len > clock)
  for (const s of mine) for (const c of [s.clock, s.clock + s.len]) if (c > clock && c < end) cuts.add(c)
  const sorted = [...cuts].sort((a, b) => a - b)
  return sorted.slice(1).map((to, i) => {
    const from = sorted[i] ?? clock
    return [from - clock, to - from, mine.find((s) => s.clock <= from && from < s.clock + s.len)]
  })
}

/**
 * The runs of live text in a Yjs text type, adjacent runs of one client (and one credit) merged;
 * letters inside one of `spans` (accepted suggestions) carry it as their credit.
 */
export function runsOf(type: Y.Text | Y.XmlText, spans: readonly AcceptedSpan[] = []): AuthorRun[] {
  const runs: AuthorRun[] = []
  let at = 0
  for (let item = firstItem(type); item !== null; item = item.right) {
    if (item.deleted || !item.countable) continue
    const client = item.id.client
    for (const [, length, credit] of spans.length === 0
      ? [[0, item.length, undefined] as const]
      : piecesOf(item, spans)) {
      const last = runs.at(-1)
      if (last !== undefined && last.client === client && last.credit === credit && last.to === at)
        runs[runs.length - 1] = { ...last, to: at + length }
      else runs.push({ from: at, to: at + length, client, ...(credit === undefined ? {} : { credit }) })
      at += length
    }
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
