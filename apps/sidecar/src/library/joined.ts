/**
 * Who has joined each document, as the page is told: a listed member counts as joined once a
 * body from their sidecar was heard in the document's group (their capability announcement, a
 * sync request, an edit); until then the page shows them as invited. Signal lists a person added
 * with a profile as a member at once, so the listing alone cannot tell. Kept in the replica store
 * (joined-table.ts) so a restart does not make everyone "invited" again.
 * @see docs/documents.md §1.5
 */
import type { MemberId } from '../group/roster.ts'
import type { JoinedTable } from './joined-table.ts'

// Keys remembered per document in memory (a Signal group has at most ~1000 members, two keys each).
const MAX_KEYS_PER_DOCUMENT = 2048

export interface Joined {
  /** A body from `from` was heard in the document's group. */
  heard(docId: string, from: MemberId | undefined): void
  /** Whether the member with this number (or ACI) was heard in the document. */
  has(docId: string, member: MemberId): boolean
  /** Someone was removed from the document: shared again, they are invited until heard again. */
  forgetMember(docId: string, number: string): void
  forget(docId: string): void
}

export interface JoinedOptions {
  readonly table: JoinedTable
  /** This account's number: always joined, never stored. */
  readonly you: string
  readonly now: () => number
  /** Runs a store step (a failure stops the sidecar; undefined then). */
  readonly storing: <T>(fn: () => T) => T | undefined
}

const keysOf = (m: MemberId): string[] => [
  ...(m.number === undefined || m.number === '' ? [] : [`n:${m.number}`]),
  ...(m.uuid === undefined || m.uuid === '' ? [] : [`u:${m.uuid.toLowerCase()}`]),
]

export function createJoined(o: JoinedOptions): Joined {
  const byDoc = new Map<string, Set<string>>()
  function keysIn(docId: string): Set<string> {
    let keys = byDoc.get(docId)
    if (keys === undefined) {
      keys = new Set(o.storing(() => o.table.list(docId)) ?? [])
      byDoc.set(docId, keys)
    }
    return keys
  }
  return {
    heard(docId, from) {
      if (from === undefined || from.number === o.you) return
      const keys = keysIn(docId)
      for (const k of keysOf(from)) {
        if (keys.has(k) || keys.size >= MAX_KEYS_PER_DOCUMENT) continue
        keys.add(k)
        o.storing(() => o.table.remember(docId, k, o.now()))
      }
    },
    has(docId, member) {
      if (member.number === o.you) return true
      const keys = keysIn(docId)
      return keysOf(member).some((k) => keys.has(k))
    },
    forgetMember(docId, number) {
      const key = `n:${number}`
      if (!keysIn(docId).delete(key)) return
      o.storing(() => o.table.forgetMember(docId, key))
    },
    forget(docId) {
      byDoc.delete(docId)
      o.storing(() => o.table.forget(docId))
    },
  }
}
