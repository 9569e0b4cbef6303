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
import type { AttachmentFetcher, FetchFailure } from './attachment-fetch.ts'
import type { MemberId } from '../group/roster.ts'
import type { SignalAttachment } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

export interface IngestOptions {
  /** groupId → docId of every mapped document. */
  docsByGroup: ReadonlyMap<string, string>
  maxFrameBytes: number
  reassembly: { maxPartialMessages: number; maxPartialBytes: number; ttlMs: number }
  dedup: { maxEntries: number; ttlMs: number }
  now: () => number
  deliver: (docId: string, frame: Uint8Array, envelope: Envelope, from: MemberId | undefined) => void
  /** Reads `deflated` envelopes (else they are dropped, as a sidecar before compression did). */
  readDeflate?: boolean
  /** Fetches the frames `attachment` envelopes name; without it they are dropped as unsupported. */
  attachments?: AttachmentFetcher
  /** A referenced attachment could not be used: the document should ask the group again. */
  onLost?: (docId: string, reason: FetchFailure) => void
  /** A referenced attachment was fetched and checked. */
  onFetched?: () => void
  metrics: Metrics
  logger: Logger
}

export interface Ingest {
  /** Handles one body read from a group; `message` says who sent it and what it carried. */
  handle(groupId: string, body: string, message?: { from?: MemberId; attachments?: readonly SignalAttachment[] }): void
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
  // References being fetched, by (document, sender, message id): a second copy waits for the first.
  const fetching = new Set<string>()
  const evicted = (list: readonly Eviction[]) => {
    for (const e of list) o.metrics.reassemblyEvictions.inc({ reason: e.reason })
  }

  function attachment(docId: string, groupId: string, ref: Envelope, from: MemberId | undefined, listed: readonly SignalAttachment[]): void {
    const fetcher = o.attachments
    if (fetcher === undefined) return drop('unsupported-kind')
    if (dedup.has(ref.docId, ref.senderId, ref.messageId, o.now())) return void o.metrics.dedupHits.inc()
    const key = `${ref.docId}/${ref.senderId}/${ref.messageId}`
    if (fetching.has(key)) return void o.metrics.dedupHits.inc()
    fetching.add(key)
    void fetcher.open(groupId, ref, listed).then((r) => {
      fetching.delete(key)
      o.metrics.attachmentsFetched.inc({ outcome: r.ok ? 'ok' : r.reason })
      if (r.ok) {
        o.onFetched?.()
        return accept(docId, r.frame, r.envelope, from)
      }
      drop(`attachment-${r.reason}`)
      o.onLost?.(docId, r.reason)
    })
  }

  function chunk(docId: string, env: Envelope, from: MemberId | undefined): void {
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
    if (r.status === 'complete') accept(docId, r.frame, r.envelope, from)
  }

  function accept(docId: string, frame: Uint8Array, env: Envelope, from: MemberId | undefined): void {
    if (env.docId !== docId) return drop('wrong-document')
    if (env.kind === 'ack' || env.kind === 'error') return drop('local-only-kind')
    if (!BROWSER_KINDS.has(env.kind)) return drop('unexpected-kind')
    if (!isDeflated(env)) {
      if (dedup.seen(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
      return deliver(docId, frame, env, from)
    }
    if (o.readDeflate === false) return drop('unsupported-flag')
    // Checked before inflating (no work for a copy), recorded after (a corrupt copy does not
    // shadow a good one).
    if (dedup.has(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
    const plain = inflateFrame(env, o.maxFrameBytes)
    if (!plain.ok) return drop(plain.reason)
    dedup.seen(env.docId, env.senderId, env.messageId, o.now())
    deliver(docId, plain.frame, plain.envelope, from)
  }

  function deliver(docId: string, frame: Uint8Array, env: Envelope, from: MemberId | undefined): void {
    o.metrics.envelopesOut.inc({ kind: env.kind })
    o.deliver(docId, frame, env, from)
  }

  return {
    handle(groupId, body, message) {
      const from = message?.from
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
      if (env.kind === 'chunk') return chunk(docId, env, from)
      if (env.kind === 'attachment') {
        const own = frame.slice()
        return attachment(docId, groupId, decodeEnvelope(own, { maxPayloadBytes: o.maxFrameBytes }), from, message?.attachments ?? [])
      }
      if (env.kind !== 'batch') {
        const own = frame.slice()
        return accept(docId, own, decodeEnvelope(own, { maxPayloadBytes: o.maxFrameBytes }), from)
      }
      let inner: Envelope[]
      try {
        inner = unpackBatch(env, { maxPayloadBytes: o.maxFrameBytes })
      } catch {
        return drop('invalid-batch')
      }
      for (const e of inner) {
        if (e.kind === 'chunk') chunk(docId, e, from)
        // A reference belongs to the attachment of its own message: never inside a batch.
        else if (e.kind === 'attachment') drop('unexpected-kind')
        else accept(docId, encodeEnvelope(e), e, from)
      }
    },
    markSent(docId, senderId, messageId) {
      return dedup.seen(docId, senderId, messageId, o.now())
    },
  }
}
