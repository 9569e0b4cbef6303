/**
 * The timestamps of messages this loop posted, so their echoes (sync copies, or a daemon that
 * relays our own sends) are recognised by id rather than by text. Bounded: oldest entries go first.
 */
export interface SentTimestamps {
  remember(timestamp: number): void
  has(timestamp: number): boolean
  readonly size: number
}

/** A bounded set of sent timestamps (default 1024 entries). */
export function createSentTimestamps(maxEntries = 1024): SentTimestamps {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer')
  const seen = new Set<number>()
  return {
    remember(timestamp) {
      seen.delete(timestamp)
      seen.add(timestamp)
      while (seen.size > maxEntries) {
        const oldest = seen.values().next().value
        if (oldest === undefined) break
        seen.delete(oldest)
      }
    },
    has: (timestamp) => seen.has(timestamp),
    get size() {
      return seen.size
    },
  }
}
