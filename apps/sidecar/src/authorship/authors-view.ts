/**
 * What `GET /v1/docs/<docId>/authors` answers: each Yjs client id of the document with the account
 * it belongs to (verified: the id carries that account's author tag, and Signal authenticated the
 * account's own update or announcement of it) or, otherwise, the member that relayed it or (a
 * legacy id) that first wrote it (not verified). Names are the listing's told-apart ones
 * (people/told-apart.ts), already made safe to show.
 * @see docs/documents.md "Who wrote this", docs/decisions/0023-account-derived-client-ids.md
 */
import type { MemberId } from '../group/roster.ts'
import { sameAccount, type Authorship } from './author-book.ts'

/** A person as the page shows them. */
export interface AuthorPerson {
  readonly number: string | null
  readonly name: string | null
  /** This sidecar's own account. */
  readonly you: boolean
}

/** For a restore's client id: the time (ms since 1970) of the version its letters were restored from. */
type Restored = { readonly restoredFrom?: number }

export type AuthorView =
  | (AuthorPerson & { readonly verified: true } & Restored)
  | ({ readonly verified: false; readonly relayedBy: AuthorPerson } & Restored)

export interface AuthorsView {
  /** Client id (decimal) → who wrote under it. */
  readonly authors: Record<string, AuthorView>
}

/**
 * The answer for a document's authors; `names` maps numbers to shown names, `restores` a restore's
 * client id to the time of the version it restored (read from the document's restore records).
 */
export function authorsView(
  entries: readonly Authorship[],
  names: ReadonlyMap<string, string | undefined>,
  you: MemberId,
  restores: ReadonlyMap<number, number> = new Map(),
): AuthorsView {
  const person = (m: MemberId): AuthorPerson => ({
    number: m.number ?? null,
    name: (m.number === undefined ? undefined : names.get(m.number)) ?? null,
    you: sameAccount(m, you),
  })
  const authors: Record<string, AuthorView> = {}
  for (const e of entries) {
    const at = restores.get(e.clientId)
    const restored = at === undefined ? {} : { restoredFrom: at }
    authors[String(e.clientId)] =
      e.author === undefined
        ? { verified: false, relayedBy: person(e.relayedBy), ...restored }
        : e.verified
          ? { ...person(e.author), verified: true, ...restored }
          : { verified: false, relayedBy: person(e.author), ...restored }
  }
  return { authors }
}
