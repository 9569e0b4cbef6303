/** One accepted prompt waiting for its turn. */
export interface InboxItem {
  text: string
  /** Who sent it and its sent timestamp: the target of its receipt reactions. */
  author: string
  timestamp: number
}

/** The bounded FIFO of prompts. A full inbox refuses; it never evicts or drops silently. */
export interface Inbox {
  /** Adds at the back; `{ taken: false }` when full (the caller answers "queue full"). */
  offer(item: InboxItem): { taken: true; position: number } | { taken: false }
  take(): InboxItem | undefined
  /** Empties the inbox and returns what was waiting (to mark each cancelled). */
  drain(): InboxItem[]
  readonly size: number
  readonly capacity: number
}

/** A bounded inbox; `capacity` is a positive integer (default of the command: 32). */
export function createInbox(capacity: number): Inbox {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('inbox capacity must be a positive integer')
  const items: InboxItem[] = []
  return {
    offer(item) {
      if (items.length >= capacity) return { taken: false }
      items.push(item)
      return { taken: true, position: items.length }
    },
    take: () => items.shift(),
    drain: () => items.splice(0, items.length),
    get size() {
      return items.length
    },
    capacity,
  }
}
