/**
 * Who is here, in words: "Bob is here · typing". Typing is read from the document updates a peer's
 * edits arrive in (their Yjs client id is their awareness id), so it costs no presence message.
 */
import * as Y from 'yjs'

/** How long after a peer's last edit they still count as typing, ms. */
export const TYPING_FOR_MS = 3000

const COLOURS = ['#d1495b', '#00798c', '#edae49', '#66a182', '#8d5a97', '#2e4057'] as const

/** A stable colour for a name (the same person gets the same colour on every page). */
export function colourFor(name: string): string {
  let hash = 0
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0
  return COLOURS[hash % COLOURS.length] ?? COLOURS[0]
}

/** A peer as the presence line needs it. */
export interface Peer {
  readonly name: string
  readonly typing: boolean
}

/** "Nobody else is here", "Bob is here · typing", "Bob and Carol are here". */
export function presenceText(peers: readonly Peer[]): string {
  if (peers.length === 0) return 'nobody else is here'
  const names = peers.map((p) => p.name)
  const who = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  const typing = peers.filter((p) => p.typing).map((p) => p.name)
  const verb = peers.length === 1 ? 'is' : 'are'
  if (typing.length === 0) return `${who} ${verb} here`
  return peers.length === 1 ? `${who} ${verb} here · typing` : `${who} ${verb} here · ${typing.join(', ')} typing`
}

/** Remembers when each Yjs client last edited (from remote updates). */
export class EditTimes {
  readonly #last = new Map<number, number>()

  /** Records the clients an update carries new structs from. */
  record(update: Uint8Array, now: number): void {
    for (const client of Y.parseUpdateMeta(update).to.keys()) this.#last.set(client, now)
  }

  typing(client: number, now: number): boolean {
    const at = this.#last.get(client)
    return at !== undefined && now - at < TYPING_FOR_MS
  }
}
