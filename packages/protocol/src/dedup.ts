/**
 * A bounded memory of recently seen (document, sender, message id) keys, so a message that reaches a
 * receiver twice (a resend, two paths, a replayed Signal message) is processed once. Checks are O(1):
 * one `Map` lookup; expiry and eviction pop from the front of the `Map`'s insertion order.
 *
 * @see docs/protocol.md §3.8 "Reassembly and deduplication"
 */
import { positiveInteger } from './bounded-options.ts'

/** Bounds of a {@link DedupWindow}. */
export interface DedupWindowOptions {
  /** Most keys remembered; past it the oldest is forgotten. */
  readonly maxEntries: number
  /** A key is forgotten this many milliseconds after it was first seen. */
  readonly ttlMs: number
}

/** The dedup memory returned by {@link createDedupWindow}. */
export interface DedupWindow {
  /**
   * Records the key and tells whether it was already remembered. A repeat does not extend the key's
   * life: its age counts from the first sighting.
   */
  seen(docId: string, senderId: string, messageId: string, now: number): boolean
  /** Tells whether the key is remembered, without recording it. */
  has(docId: string, senderId: string, messageId: string, now: number): boolean
  /** Number of keys remembered now (expired ones may linger until the next call with a later `now`). */
  readonly size: number
}

/**
 * Creates an empty dedup window. Time is passed in (`now`, milliseconds, non-decreasing).
 *
 * @throws ProtocolError `PROTO_INVALID_OPTION` unless both bounds are positive integers.
 */
export function createDedupWindow(options: DedupWindowOptions): DedupWindow {
  const maxEntries = positiveInteger('maxEntries', options.maxEntries)
  const ttlMs = positiveInteger('ttlMs', options.ttlMs)
  // key → time first seen; insertion order is age order as long as `now` does not go back.
  const entries = new Map<string, number>()

  function expire(now: number): void {
    for (const [key, at] of entries) {
      if (now - at < ttlMs) break
      entries.delete(key)
    }
  }

  return {
    seen(docId, senderId, messageId, now) {
      expire(now)
      const key = `${docId}/${senderId}/${messageId}`
      if (entries.has(key)) return true
      entries.set(key, now)
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done !== true) entries.delete(oldest.value)
      }
      return false
    },
    has(docId, senderId, messageId, now) {
      expire(now)
      return entries.has(`${docId}/${senderId}/${messageId}`)
    },
    get size() {
      return entries.size
    },
  }
}
