/**
 * The account's contacts as the library shows them: who people are for a document or an
 * invitation (from a short-lived cache, since every page view asks), and the list the page picks
 * people from (always fresh). Each person comes with their name as told apart (told-apart.ts):
 * whether the account gave them a name, and Signal's safety-number state. A group update or a
 * membership change forgets the cache: a group brings its members' profiles with it.
 */
import type { SignalContact, SignalIdentity } from '@e2e-col/signal-cli'
import { daemonFailed } from '../http/library-error.ts'
import { tellApart, type Known, type TellApart, type Told } from './told-apart.ts'

const CONTACTS_TTL_MS = 30_000

/** One contact as `/v1/contacts` lists them. */
export type ContactView = { number: string; name: string | undefined } & Told

export interface Contacts {
  /** Who is who; names only (nobody in contacts) when the daemon cannot say (names are a nicety). */
  directory(): Promise<TellApart>
  /** Every contact but this account, listed now. @throws LibraryError DOCS_DAEMON_FAILED */
  fresh(): Promise<ContactView[]>
  /**
   * Someone's name as shown, from the directory last read (for callers that cannot wait, such as
   * the history's authors); a stale or missing directory is read again in the background.
   */
  shownNow(number: string): string | undefined
  /** Marks the cached list stale: it is read again on next use; its names show meanwhile. */
  forget(): void
}

export interface ContactsOptions {
  readonly listContacts: () => Promise<SignalContact[]>
  /** Safety numbers; without it (or when it fails) nobody's state is shown. */
  readonly listIdentities?: (() => Promise<SignalIdentity[]>) | undefined
  readonly now: () => number
  readonly you: string
}

export function createContacts(o: ContactsOptions): Contacts {
  let cache: { at: number; known: Known[]; told: TellApart } | undefined
  let reading: Promise<unknown> | undefined
  async function safeties(): Promise<Map<string, SignalIdentity['safety']>> {
    try {
      return new Map((await (o.listIdentities?.() ?? Promise.resolve([]))).map((i) => [i.number, i.safety]))
    } catch {
      // A daemon without listIdentities still names people; their state is just not shown.
      return new Map()
    }
  }
  async function list(fresh: boolean): Promise<Known[]> {
    const now = o.now()
    if (!fresh && cache !== undefined && now - cache.at < CONTACTS_TTL_MS) return cache.known
    const [listed, safety] = await Promise.all([o.listContacts(), safeties()])
    const known = listed.map((c) => ({
      number: c.number,
      name: c.name,
      inContacts: c.inContacts === true,
      safety: safety.get(c.number),
    }))
    cache = { at: now, known, told: tellApart(known) }
    return known
  }
  return {
    async directory() {
      try {
        await list(false)
        return cache?.told ?? tellApart([])
      } catch {
        return tellApart([])
      }
    },
    shownNow(number) {
      if (number === o.you) return undefined
      if ((cache === undefined || o.now() - cache.at >= CONTACTS_TTL_MS) && reading === undefined)
        reading = list(false)
          .catch(() => undefined)
          .finally(() => {
            reading = undefined
          })
      const told = cache?.told.tell(number)
      return told === undefined || told.shown === number ? undefined : told.shown
    },
    async fresh() {
      let known: Known[]
      try {
        known = await list(true)
      } catch (error) {
        throw daemonFailed('list contacts', error)
      }
      const told = tellApart(known)
      return known
        .filter((c) => c.number !== o.you)
        .map((c) => ({ number: c.number, name: c.name, ...told.tell(c.number) }))
    },
    forget() {
      // Stale, not gone: the names still show (carets, "is here") until the next read replaces them;
      // dropping them stamped a member's presence with a bare number until its next change.
      if (cache !== undefined) cache = { ...cache, at: Number.NEGATIVE_INFINITY }
    },
  }
}
