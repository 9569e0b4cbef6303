/**
 * The receive path: a group body from the events stream becomes zero or more envelopes for the
 * document's browsers. Bodies without the `e2e-col:v1:` prefix are ignored (plain chat text);
 * bodies longer than the receive bound are dropped before decoding; batches are unpacked, chunks
 * reassembled, and duplicates dropped by (document, sender, message id). The sidecar records the
 * ids it sends itself, so the sync copy of its own send never comes back. Nothing here throws:
 * every drop is counted.
 *
 * Reassembly and deduplication are kept per Signal source (the account the daemon says sent the
 * body): one member can neither flush another's dedup memory nor mix chunks into, evict or poison
 * another's partial messages. One body causes bounded work: at most `maxFrameBytes` of inflated
 * payload in all and at most one `sync-request` (§4.6).
 * @see docs/sidecar.md §4
 */
import {
  BODY_PREFIX, createDedupWindow, createReassembler, decodeBodyInto, decodeEnvelope, encodeEnvelope, unpackBatch,
  type DedupWindow, type Envelope, type Eviction, type Reassembler,
} from '@e2e-col/protocol'
import { BROWSER_KINDS } from '../browser/kinds.ts'
import { inflateFrame, isDeflated } from './inflate-frame.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

export interface IngestOptions {
  /** groupId → docId of every mapped document. */
  docsByGroup: ReadonlyMap<string, string>
  maxFrameBytes: number
  /** Longest body decoded, in UTF-8 bytes (ASCII: characters); longer ones are dropped unread. */
  maxBodyBytes?: number
  /** Bounds of each source's reassembler. */
  reassembly: { maxPartialMessages: number; maxPartialBytes: number; ttlMs: number }
  /** Bounds of each source's dedup window. */
  dedup: { maxEntries: number; ttlMs: number }
  now: () => number
  /** `source` is the key of the Signal account that sent the body ({@link SELF} for our own). */
  deliver: (docId: string, frame: Uint8Array, envelope: Envelope, source: string) => void
  metrics: Metrics
  logger: Logger
}

export interface Ingest {
  /** Handles one body read from a group, sent by `source` (a stable key of the Signal account). */
  handle(groupId: string, body: string, source?: string): void
  /**
   * Records an envelope this sidecar is sending, so its copy from Signal is dropped. True when it
   * was recorded already (a browser's replay of an envelope first received earlier).
   */
  markSent(docId: string, senderId: string, messageId: string): boolean
}

/** The source key of this sidecar's own account (sends of its own, and sync copies of them). */
export const SELF = 'self'

// Bodies are decoded into one reused buffer (no allocation per body). Whatever outlives the call
// is copied: chunks by the reassembler, batch entries by encodeEnvelope, whole frames below.
const BODY_SCRATCH_BYTES = 4096
// Sources remembered at once; beyond it the least recently heard one is forgotten. Only members
// reach this point (§4.6), so in practice this is the largest group's size.
const MAX_SOURCES = 256
// Protocol default for a body with no configured bound (decodeBody's own default).
const DEFAULT_MAX_BODY_CHARS = 1024 * 1024

interface SourceState {
  readonly dedup: DedupWindow
  readonly reassembler: Reassembler
}

export function createIngest(o: IngestOptions): Ingest {
  const scratch = new Uint8Array(BODY_SCRATCH_BYTES)
  const maxBodyChars = o.maxBodyBytes ?? DEFAULT_MAX_BODY_CHARS
  const sources = new Map<string, SourceState>()
  const newSource = (): SourceState => ({
    dedup: createDedupWindow(o.dedup),
    reassembler: createReassembler({ ...o.reassembly, maxPayloadBytes: o.maxFrameBytes }),
  })
  const self = newSource()
  function sourceState(key: string): SourceState {
    if (key === SELF) return self
    let s = sources.get(key)
    if (s === undefined) {
      s = newSource()
      if (sources.size >= MAX_SOURCES) {
        const oldest = sources.keys().next()
        if (oldest.done !== true) sources.delete(oldest.value)
      }
    } else sources.delete(key)
    sources.set(key, s) // most recently heard last
    return s
  }
  const drop = (reason: string) => o.metrics.receivedDropped.inc({ reason })
  const evicted = (list: readonly Eviction[]) => {
    for (const e of list) o.metrics.reassemblyEvictions.inc({ reason: e.reason })
  }

  /** What one body may still cost. */
  interface Budget {
    source: string
    state: SourceState
    inflateBytes: number
    syncRequests: number
  }

  function chunk(docId: string, env: Envelope, b: Budget): void {
    o.metrics.chunksReceived.inc()
    const { dedup, reassembler } = b.state
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
    if (r.status === 'complete') accept(docId, r.frame, r.envelope, b)
  }

  function accept(docId: string, frame: Uint8Array, env: Envelope, b: Budget): void {
    if (env.docId !== docId) return drop('wrong-document')
    if (env.kind === 'ack' || env.kind === 'error') return drop('local-only-kind')
    if (!BROWSER_KINDS.has(env.kind)) return drop('unexpected-kind')
    const { dedup } = b.state
    if (!isDeflated(env)) {
      if (dedup.seen(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
      return deliver(docId, frame, env, b)
    }
    // Checked before inflating (no work for a copy), recorded after (a corrupt copy does not
    // shadow a good one).
    if (dedup.has(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
    // One body inflates at most one frame's worth in all, however many deflated envelopes it packs.
    if (b.inflateBytes <= 0) return drop('body-budget')
    const plain = inflateFrame(env, Math.min(o.maxFrameBytes, b.inflateBytes))
    if (!plain.ok) {
      b.inflateBytes = 0 // a bomb spends the whole budget
      return drop(plain.reason)
    }
    b.inflateBytes -= plain.envelope.payload.byteLength
    dedup.seen(env.docId, env.senderId, env.messageId, o.now())
    deliver(docId, plain.frame, plain.envelope, b)
  }

  function deliver(docId: string, frame: Uint8Array, env: Envelope, b: Budget): void {
    // A body asks at most once: a batch of requests would make every member answer each of them.
    if (env.kind === 'sync-request' && ++b.syncRequests > 1) return drop('body-budget')
    o.metrics.envelopesOut.inc({ kind: env.kind })
    o.deliver(docId, frame, env, b.source)
  }

  return {
    handle(groupId, body, source = '') {
      const docId = o.docsByGroup.get(groupId)
      if (docId === undefined) return drop('unmapped-group')
      if (!body.startsWith(BODY_PREFIX)) return drop('plain-text')
      // Before any decoding: a body no member's sidecar would send costs nothing more.
      if (body.length > maxBodyChars) return drop('body-too-large')
      let frame: Uint8Array
      let env: Envelope
      try {
        frame = decodeBodyInto(body, scratch, { maxBodyChars })
        env = decodeEnvelope(frame, { maxPayloadBytes: o.maxFrameBytes })
      } catch {
        return drop('invalid-body')
      }
      if (env.docId !== docId) return drop('wrong-document')
      const b: Budget = { source, state: sourceState(source), inflateBytes: o.maxFrameBytes, syncRequests: 0 }
      if (env.kind === 'chunk') return chunk(docId, env, b)
      if (env.kind !== 'batch') {
        const own = frame.slice()
        return accept(docId, own, decodeEnvelope(own, { maxPayloadBytes: o.maxFrameBytes }), b)
      }
      let inner: Envelope[]
      try {
        inner = unpackBatch(env, { maxPayloadBytes: o.maxFrameBytes })
      } catch {
        return drop('invalid-batch')
      }
      for (const e of inner) {
        if (e.kind === 'chunk') chunk(docId, e, b)
        else accept(docId, encodeEnvelope(e), e, b)
      }
    },
    markSent(docId, senderId, messageId) {
      return self.dedup.seen(docId, senderId, messageId, o.now())
    },
  }
}
