/**
 * The receive path: a group body from the events stream becomes zero or more envelopes for the
 * document's browsers. Bodies without the `e2e-col:v1:` prefix are ignored (plain chat text);
 * batches are unpacked, chunks reassembled, and duplicates dropped by (document, sender, message
 * id). The sidecar records the ids it sends itself, so the sync copy of its own send never comes
 * back. Nothing here throws: every drop is counted.
 * @see docs/sidecar.md §4
 */
import {
  BODY_PREFIX, createDedupWindow, createReassembler, decodeBodyInto, decodeEnvelope, encodeEnvelope, unpackBatch,
  type Envelope, type Eviction,
} from '@e2e-col/protocol'
import { BROWSER_KINDS } from '../browser/kinds.ts'
import { inflateFrame, isDeflated } from './inflate-frame.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

export interface IngestOptions {
  /** groupId → docId of every mapped document. */
  docsByGroup: ReadonlyMap<string, string>
  maxFrameBytes: number
  reassembly: { maxPartialMessages: number; maxPartialBytes: number; ttlMs: number }
  dedup: { maxEntries: number; ttlMs: number }
  now: () => number
  deliver: (docId: string, frame: Uint8Array, envelope: Envelope) => void
  metrics: Metrics
  logger: Logger
}

export interface Ingest {
  /** Handles one body read from a group. */
  handle(groupId: string, body: string): void
  /**
   * Records an envelope this sidecar is sending, so its copy from Signal is dropped. True when it
   * was recorded already (a browser's replay of an envelope first received earlier).
   */
  markSent(docId: string, senderId: string, messageId: string): boolean
}

// Bodies are decoded into one reused buffer (no allocation per body). Whatever outlives the call
// is copied: chunks by the reassembler, batch entries by encodeEnvelope, whole frames below.
const BODY_SCRATCH_BYTES = 4096

export function createIngest(o: IngestOptions): Ingest {
  const scratch = new Uint8Array(BODY_SCRATCH_BYTES)
  const dedup = createDedupWindow(o.dedup)
  const reassembler = createReassembler({ ...o.reassembly, maxPayloadBytes: o.maxFrameBytes })
  const drop = (reason: string) => o.metrics.receivedDropped.inc({ reason })
  const evicted = (list: readonly Eviction[]) => {
    for (const e of list) o.metrics.reassemblyEvictions.inc({ reason: e.reason })
  }

  function chunk(docId: string, env: Envelope): void {
    o.metrics.chunksReceived.inc()
    evicted(reassembler.sweep(o.now()))
    // Chunks of a message already delivered (or sent by this sidecar) need no reassembly.
    if (dedup.has(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
    let r: ReturnType<typeof reassembler.push>
    try {
      r = reassembler.push(env, o.now())
    } catch {
      return drop('invalid-chunk')
    }
    evicted(r.evicted)
    if (r.status === 'rejected') return drop('invalid-chunk')
    if (r.status === 'complete') accept(docId, r.frame, r.envelope)
  }

  function accept(docId: string, frame: Uint8Array, env: Envelope): void {
    if (env.docId !== docId) return drop('wrong-document')
    if (env.kind === 'ack' || env.kind === 'error') return drop('local-only-kind')
    if (!BROWSER_KINDS.has(env.kind)) return drop('unexpected-kind')
    if (!isDeflated(env)) {
      if (dedup.seen(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
      return deliver(docId, frame, env)
    }
    // Checked before inflating (no work for a copy), recorded after (a corrupt copy does not
    // shadow a good one).
    if (dedup.has(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
    const plain = inflateFrame(env, o.maxFrameBytes)
    if (!plain.ok) return drop(plain.reason)
    dedup.seen(env.docId, env.senderId, env.messageId, o.now())
    deliver(docId, plain.frame, plain.envelope)
  }

  function deliver(docId: string, frame: Uint8Array, env: Envelope): void {
    o.metrics.envelopesOut.inc({ kind: env.kind })
    o.deliver(docId, frame, env)
  }

  return {
    handle(groupId, body) {
      const docId = o.docsByGroup.get(groupId)
      if (docId === undefined) return drop('unmapped-group')
      if (!body.startsWith(BODY_PREFIX)) return drop('plain-text')
      let frame: Uint8Array
      let env: Envelope
      try {
        frame = decodeBodyInto(body, scratch)
        env = decodeEnvelope(frame, { maxPayloadBytes: o.maxFrameBytes })
      } catch {
        return drop('invalid-body')
      }
      if (env.docId !== docId) return drop('wrong-document')
      if (env.kind === 'chunk') return chunk(docId, env)
      if (env.kind !== 'batch') {
        const own = frame.slice()
        return accept(docId, own, decodeEnvelope(own, { maxPayloadBytes: o.maxFrameBytes }))
      }
      let inner: Envelope[]
      try {
        inner = unpackBatch(env, { maxPayloadBytes: o.maxFrameBytes })
      } catch {
        return drop('invalid-batch')
      }
      for (const e of inner) {
        if (e.kind === 'chunk') chunk(docId, e)
        else accept(docId, encodeEnvelope(e), e)
      }
    },
    markSent(docId, senderId, messageId) {
      return dedup.seen(docId, senderId, messageId, o.now())
    },
  }
}
