/**
 * Merges a send queue's backlog (what piled up while Signal was away, or what a previous run kept)
 * before it is sent: the Yjs updates become as few updates as the payload bound allows (one, for an
 * ordinary hour of typing, instead of hundreds of sends); of the replica's own sync-requests only
 * the newest is kept; presence (awareness) is dropped, being stale by then. Every merged
 * envelope's owner is told with the merged one's outcome, under its own id.
 * @see docs/sidecar.md §4.4
 */
import { decodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import * as Y from 'yjs'
import type { QueuedEnvelope, SendOwner } from './queue.ts'

const YJS_KINDS: ReadonlySet<Kind> = new Set<Kind>(['update', 'sync-response', 'snapshot'])
// Presence only: `health` carries capability announcements and state vectors, kept as they are.
const STALE_KINDS: ReadonlySet<Kind> = new Set<Kind>(['awareness'])

export interface MergeOptions {
  /** Largest merged payload; updates beyond it start another merged envelope. */
  maxPayloadBytes: number
  /**
   * Wraps a merged payload as an envelope of the sidecar's own: an `update` when every merged
   * envelope was one, else a `sync-response` (a relayed answer is not this account's writing, and
   * members strip what an update carries under another account's client ids: decisions/0023).
   */
  wrap: (payload: Uint8Array, kind: 'update' | 'sync-response') => { frame: Uint8Array; messageId: string }
  /** Called with how many envelopes went into merged ones. */
  onMerged?: (n: number) => void
}

export function mergeBacklog(waiting: readonly QueuedEnvelope[], o: MergeOptions): QueuedEnvelope[] {
  const kept: QueuedEnvelope[] = []
  const groups: { items: { item: QueuedEnvelope; env: Envelope }[]; bytes: number }[] = []
  let lastAsk: QueuedEnvelope | undefined
  for (const item of waiting) {
    let env: Envelope
    try {
      env = decodeEnvelope(item.frame, { maxPayloadBytes: item.frame.byteLength })
    } catch {
      kept.push(item) // not ours to judge: it goes as it is
      continue
    }
    if (STALE_KINDS.has(env.kind)) continue
    if (env.kind === 'sync-request') {
      lastAsk = item
      continue
    }
    if (!YJS_KINDS.has(env.kind)) {
      kept.push(item)
      continue
    }
    const group = groups.at(-1)
    if (group !== undefined && group.bytes + env.payload.byteLength <= o.maxPayloadBytes) {
      group.items.push({ item, env })
      group.bytes += env.payload.byteLength
    } else groups.push({ items: [{ item, env }], bytes: env.payload.byteLength })
  }
  const merged: QueuedEnvelope[] = []
  for (const group of groups) {
    const only = group.items[0]
    if (group.items.length === 1 && only !== undefined) {
      merged.push(only.item)
      continue
    }
    const kind = group.items.every((g) => g.env.kind === 'update') ? 'update' : 'sync-response'
    const { frame, messageId } = o.wrap(Y.mergeUpdates(group.items.map((g) => g.env.payload)), kind)
    const members = group.items.map((g) => g.item)
    const owner: SendOwner = {
      ack: () => {
        for (const m of members) m.owner.ack(m.messageId)
      },
      reject: (_id, code, message) => {
        for (const m of members) m.owner.reject(m.messageId, code, message)
      },
    }
    merged.push({ frame, messageId, owner })
    o.onMerged?.(members.length)
  }
  return [...merged, ...kept, ...(lastAsk === undefined ? [] : [lastAsk])]
}
