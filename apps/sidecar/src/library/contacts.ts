/**
 * The account's contacts as the library shows them: names for the people of a document or an
 * invitation (from a short-lived cache, since every page view asks), and the list the page picks
 * people from (always fresh). A group update or a membership change forgets the cache: a group
 * brings its members' profiles with it.
 */
import type { SignalContact } from '@e2e-col/signal-cli'
import { daemonFailed } from './library-error.ts'

const CONTACTS_TTL_MS = 30_000

export interface Contacts {
  /** Number → name; empty when the daemon cannot say (names are a nicety). */
  names(): Promise<Map<string, string | undefined>>
  /** Every contact but this account, listed now. @throws LibraryError DOCS_DAEMON_FAILED */
  fresh(): Promise<SignalContact[]>
  /** Forgets the cached list. */
  forget(): void
}

export interface ContactsOptions {
  readonly listContacts: () => Promise<SignalContact[]>
  readonly now: () => number
  readonly you: string
}

export function createContacts(o: ContactsOptions): Contacts {
  let cache: { at: number; list: SignalContact[] } | undefined
  async function list(fresh: boolean): Promise<SignalContact[]> {
    const now = o.now()
    if (!fresh && cache !== undefined && now - cache.at < CONTACTS_TTL_MS) return cache.list
    const listed = await o.listContacts()
    cache = { at: now, list: listed }
    return listed
  }
  return {
    async names() {
      try {
        return new Map((await list(false)).map((c) => [c.number, c.name]))
      } catch {
        return new Map()
      }
    },
    async fresh() {
      try {
        return (await list(true)).filter((c) => c.number !== o.you)
      } catch (error) {
        throw daemonFailed('list contacts', error)
      }
    },
    forget() {
      cache = undefined
    },
  }
}
