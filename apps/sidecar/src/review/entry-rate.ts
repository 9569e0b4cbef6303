/**
 * The rate at which one member's review entries (comments, replies, resolutions, suggestions,
 * decisions) are taken from the group, per document (decision 0038). Charged like the claims book
 * of decision 0024: per member, whatever the entries say. A member has a bucket of
 * {@link ENTRY_RATE}.burst entries that refills at `perMinute`; a message whose new entries do not
 * fit is dropped whole (counted by the caller) and charges nothing. A dropped honest message is not
 * lost: its writer's later changes wait on its clocks, and gap repair fetches it once the bucket
 * holds it again. At most `members` members are remembered; the least recently charged is forgotten.
 */
export const ENTRY_RATE = {
  /** Entries a member may send at once. */
  burst: 120,
  /** Entries a member's bucket regains a minute. */
  perMinute: 60,
  /** Members remembered per document. */
  members: 256,
} as const

export interface EntryRate {
  /** True when `member` may have `entries` new entries applied now (and charges them); false: drop. */
  take(member: string, entries: number, now: number): boolean
}

export function createEntryRate(o: { burst: number; perMinute: number; members: number } = ENTRY_RATE): EntryRate {
  // Insertion order is recency: a charged member is moved to the end.
  const buckets = new Map<string, { left: number; at: number }>()
  return {
    take(member, entries, now) {
      if (entries === 0) return true
      const was = buckets.get(member) ?? { left: o.burst, at: now }
      const left = Math.min(o.burst, was.left + (Math.max(0, now - was.at) * o.perMinute) / 60_000)
      buckets.delete(member)
      if (entries > left) {
        buckets.set(member, { left, at: now })
        return false
      }
      buckets.set(member, { left: left - entries, at: now })
      if (buckets.size > o.members) buckets.delete(buckets.keys().next().value ?? '')
      return true
    },
  }
}
