/**
 * The order of one group's waiting envelopes: fair between sources, stable within each, and never
 * past the leading envelopes a send has already begun on (the pinned front).
 *
 * Fair queuing by start tags: an envelope's tag is one past the later of the last tag sent and its
 * source's previous tag, and the order stays sorted by tag (stable). A source with many queued
 * envelopes thus takes one turn per round while each other source also gets one.
 * @see docs/sidecar.md §4
 */
import type { QueuedEnvelope } from './queue-types.ts'

export interface FairOrder {
  /** The envelopes in sending order; the first `pinned` are taken by a send. */
  readonly items: readonly QueuedEnvelope[]
  /** Leading envelopes a new one may not pass. */
  readonly pinned: number
  /** Frame bytes of every envelope held. */
  readonly bytes: number
  /** Inserts after every unpinned envelope whose tag is not greater (usually at the end). */
  insert(item: QueuedEnvelope): void
  /** Keeps new envelopes from passing the first `n` (the pump has begun on them). */
  pin(n: number): void
  /** Replaces the pinned front envelope with another form of it (its frame compressed), same tag. */
  replaceFront(next: QueuedEnvelope): void
  /** Takes the first `n` envelopes out (they were sent or dropped); unpins. */
  removeFront(n: number): QueuedEnvelope[]
  /** Takes out every envelope not yet pinned. */
  takeWaiting(): QueuedEnvelope[]
  /** Takes out the first envelope not yet pinned that is marked `first` (a person's own change). */
  takeFirst(): QueuedEnvelope | undefined
}

export function createFairOrder(): FairOrder {
  const items: QueuedEnvelope[] = []
  const tags = new WeakMap<QueuedEnvelope, number>()
  const lastTagOf = new WeakMap<object, number>()
  // Envelopes without a source share one.
  const sharedSource = {}
  let servedTag = 0
  let pinned = 0
  let bytes = 0
  const tagOf = (item: QueuedEnvelope | undefined): number => (item === undefined ? 0 : (tags.get(item) ?? 0))

  return {
    items,
    get pinned() {
      return pinned
    },
    get bytes() {
      return bytes
    },
    insert(item) {
      const source = item.source ?? sharedSource
      const tag = Math.max(servedTag, lastTagOf.get(source) ?? 0) + 1
      lastTagOf.set(source, tag)
      tags.set(item, tag)
      let at = items.length
      while (at > pinned && tagOf(items[at - 1]) > tag) at -= 1
      items.splice(at, 0, item)
      bytes += item.frame.byteLength
    },
    pin(n) {
      pinned = Math.max(pinned, n)
    },
    replaceFront(next) {
      const front = items[0]
      if (front === undefined) return
      tags.set(next, tagOf(front))
      items[0] = next
      bytes += next.frame.byteLength - front.frame.byteLength
    },
    removeFront(n) {
      const taken = items.splice(0, n)
      for (const t of taken) {
        bytes -= t.frame.byteLength
        servedTag = Math.max(servedTag, tagOf(t))
      }
      pinned = 0
      return taken
    },
    takeFirst() {
      const at = items.findIndex((item, i) => i >= pinned && item.first === true)
      if (at < 0) return undefined
      const [taken] = items.splice(at, 1) as [QueuedEnvelope]
      bytes -= taken.frame.byteLength
      return taken
    },
    takeWaiting() {
      const waiting = items.splice(pinned)
      for (const w of waiting) bytes -= w.frame.byteLength
      return waiting
    },
  }
}
