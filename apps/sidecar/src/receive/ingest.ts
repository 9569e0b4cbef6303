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
 * payload in all (an attachment carrying a whole document: `maxAttachmentFrameBytes`) and at most
 * one `sync-request` (§4.6).
 * @see docs/sidecar.md §4
 */
import {
  BODY_PREFIX,
  createDedupWindow,
  createReassembler,
  decodeBodyInto,
  decodeEnvelope,
  encodeEnvelope,
  unpackBatch,
  type DedupWindow,
  type Envelope,
  type Eviction,
  type Kind,
  type Reassembler,
} from '@e2e-col/protocol'
import { BROWSER_KINDS } from '../browser/kinds.ts'
import { inflateFrame, isDeflated } from './inflate-frame.ts'
import type { AttachmentFetcher, FetchFailure } from './attachment-fetch.ts'
import type { MemberId } from '../group/roster.ts'
import type { SignalAttachment } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { RememberedIds } from './remembered-ids.ts'

export interface IngestOptions {
  /** The document a group carries now (documents come and go while the sidecar runs). */
  docOfGroup: (groupId: string) => string | undefined
  maxFrameBytes: number
  /** The largest frame an attachment carries, inflated (default `maxFrameBytes`). */
  maxAttachmentFrameBytes?: number
  /** Longest body decoded, in UTF-8 bytes (ASCII: characters); longer ones are dropped unread. */
  maxBodyBytes?: number
  /** Bounds of each source's reassembler and dedup window. */
  reassembly: { maxPartialMessages: number; maxPartialBytes: number; ttlMs: number }
  dedup: { maxEntries: number; ttlMs: number }
  /**
   * The dedup window of this account's own sends, when made before the ingest (the documents
   * record their sends into it before the receive path exists); one of `dedup`'s size otherwise.
   */
  ownSends?: DedupWindow
  /**
   * Delivered ids kept across restarts (remembered-ids.ts): read once here to fill the windows,
   * told every first sighting from another account. Without it the windows live in memory only.
   */
  remembered?: Pick<RememberedIds, 'recent' | 'record'>
  now: () => number
  /**
   * `source` is the key of the Signal account that sent the body ({@link SELF} for our own).
   * True when the document refused the envelope's content (not the sender's to make).
   */
  deliver: (
    docId: string,
    frame: Uint8Array,
    envelope: Envelope,
    from: MemberId | undefined,
    source: string,
  ) => boolean | void
  /**
   * Content from `from` was refused (a viewer's attachment unfetched, or what `deliver` refused);
   * `sent` is the Signal message that carried it whole, undefined for one reassembled from chunks.
   */
  refused?: (docId: string, from: MemberId | undefined, sent: number | undefined) => void
  /** Reads `deflated` envelopes (else they are dropped, as a sidecar before compression did). */
  readDeflate?: boolean
  /** True when `from` may not change the document (a viewer): its attachments are dropped unfetched. */
  refusesContent?: (docId: string, from: MemberId | undefined) => boolean
  /** Fetches the frames `attachment` envelopes name; without it they are dropped as unsupported. */
  attachments?: AttachmentFetcher
  /** A referenced attachment could not be used: the document should ask the group again. */
  onLost?: (docId: string, reason: FetchFailure, source: string) => void
  /** A referenced attachment was fetched and checked. */
  onFetched?: (docId: string, source: string) => void
  metrics: Metrics
  logger: Logger
}

export interface Ingest {
  /**
   * Handles one body read from a group; `message` says who sent it (`source`: a stable key of the
   * Signal account, {@link SELF} for this account's own devices) and what it carried.
   */
  handle(
    groupId: string,
    body: string,
    message?: { from?: MemberId; source?: string; attachments?: readonly SignalAttachment[]; sent?: number },
  ): void
  /**
   * Records an envelope this sidecar is sending, so its copy from Signal is dropped. True when it
   * was recorded already (a browser's replay of an envelope first received earlier).
   */
  markSent(docId: string, senderId: string, messageId: string): boolean
}

// Bodies are decoded into one reused buffer (no allocation per body). Whatever outlives the call
// is copied: chunks by the reassembler, batch entries by encodeEnvelope, whole frames below.
const BODY_SCRATCH_BYTES = 4096

/** The source key of this sidecar's own account (sends of its own, and sync copies of them). */
export const SELF = 'self'

// Sources remembered at once; beyond it the least recently heard one is forgotten. Only members
// reach this point (§4.6), so in practice this is the largest group's size.
const MAX_SOURCES = 256
// Protocol default for a body with no configured bound (decodeBody's own default).
const DEFAULT_MAX_BODY_CHARS = 1024 * 1024

interface SourceState {
  /** The window the receive path asks: records first sightings in `remembered` too. */
  readonly dedup: DedupWindow
  /** The same window without recording (filled from the store at start). */
  readonly known: DedupWindow
  readonly reassembler: Reassembler
}

/** `inner`, telling `remembered` each id it sees first. */
function recording(inner: DedupWindow, source: string, remembered: IngestOptions['remembered']): DedupWindow {
  if (remembered === undefined) return inner
  return {
    seen(docId, senderId, messageId, now) {
      if (inner.seen(docId, senderId, messageId, now)) return true
      remembered.record({ source, docId, senderId, messageId, at: now })
      return false
    },
    has: (docId, senderId, messageId, now) => inner.has(docId, senderId, messageId, now),
    get size() {
      return inner.size
    },
  }
}

/** Kinds that carry a whole document (an answer to a newcomer): only they may exceed the text bound. */
const WHOLE_DOCUMENT_KINDS: ReadonlySet<Kind> = new Set<Kind>(['sync-response', 'snapshot'])

/** How far a fetched frame may inflate: the attachment bound for a whole document, the text bound else (undefined: over it already). */
function attachmentBound(
  env: Envelope,
  o: Pick<IngestOptions, 'maxFrameBytes' | 'maxAttachmentFrameBytes'>,
): number | undefined {
  if (WHOLE_DOCUMENT_KINDS.has(env.kind)) return Math.max(o.maxFrameBytes, o.maxAttachmentFrameBytes ?? 0)
  return env.payload.byteLength > o.maxFrameBytes ? undefined : o.maxFrameBytes
}

/** A fresh body's budget: `frameBytes` to inflate in all, no frame beyond it (an attachment's is its own bound). */
function bodyBudget(source: string, state: SourceState, frameBytes: number, sent: number | undefined): Budget {
  return { source, state, inflateBytes: frameBytes, frameBytes, syncRequests: 0, sent }
}

/** What one body may still cost, and whose state it touches. */
interface Budget {
  source: string
  state: SourceState
  inflateBytes: number
  /** The largest payload one of its frames may inflate to (an attachment's bound is its own). */
  frameBytes: number
  syncRequests: number
  /** The Signal message's sent timestamp, while what is delivered came whole in it. */
  sent: number | undefined
}

/**
 * Each source's dedup window and reassembler, this account's own apart (never evicted); beyond
 * MAX_SOURCES the least recently heard source is forgotten.
 */
function sourceStates(o: IngestOptions): { self: SourceState; of(key: string): SourceState } {
  const sources = new Map<string, SourceState>()
  const reassembler = () => createReassembler({ ...o.reassembly, maxPayloadBytes: o.maxFrameBytes })
  const newSource = (key: string): SourceState => {
    const known = createDedupWindow(o.dedup)
    return { dedup: recording(known, key, o.remembered), known, reassembler: reassembler() }
  }
  const own = o.ownSends ?? createDedupWindow(o.dedup)
  const self: SourceState = { dedup: own, known: own, reassembler: reassembler() }
  return {
    self,
    of(key) {
      if (key === SELF) return self
      let s = sources.get(key)
      if (s === undefined) {
        s = newSource(key)
        if (sources.size >= MAX_SOURCES) {
          const oldest = sources.keys().next()
          if (oldest.done !== true) sources.delete(oldest.value)
        }
      } else sources.delete(key)
      sources.set(key, s) // most recently heard last
      return s
    },
  }
}

export function createIngest(o: IngestOptions): Ingest {
  const scratch = new Uint8Array(BODY_SCRATCH_BYTES)
  const maxBodyChars = o.maxBodyBytes ?? DEFAULT_MAX_BODY_CHARS
  const states = sourceStates(o)
  // Ids delivered before a restart: their copies arriving now are still copies.
  for (const id of o.remembered?.recent() ?? [])
    if (id.source !== SELF) states.of(id.source).known.seen(id.docId, id.senderId, id.messageId, id.at)
  // The body being handled (the receive path is synchronous; an attachment's fetch keeps its own).
  let b = bodyBudget('', states.self, 0, undefined)
  const drop = (reason: string) => o.metrics.receivedDropped.inc({ reason })
  // References being fetched, by (document, sender, message id): a second copy waits for the first.
  const fetching = new Set<string>()
  const evicted = (list: readonly Eviction[]) => {
    for (const e of list) o.metrics.reassemblyEvictions.inc({ reason: e.reason })
  }

  function attachment(
    docId: string,
    groupId: string,
    ref: Envelope,
    from: MemberId | undefined,
    listed: readonly SignalAttachment[],
  ): void {
    const fetcher = o.attachments
    if (fetcher === undefined) return drop('unsupported-kind')
    // A viewer's attachment carries content every member drops: not worth fetching (counted there).
    if (o.refusesContent?.(docId, from) === true) return o.refused?.(docId, from, b.sent)
    const mine = b
    const { dedup } = mine.state
    if (dedup.has(ref.docId, ref.senderId, ref.messageId, o.now())) return void o.metrics.dedupHits.inc()
    const key = `${ref.docId}/${ref.senderId}/${ref.messageId}`
    if (fetching.has(key)) return void o.metrics.dedupHits.inc()
    fetching.add(key)
    void fetcher.open(groupId, ref, listed).then((r) => {
      fetching.delete(key)
      o.metrics.attachmentsFetched.inc({ outcome: r.ok ? 'ok' : r.reason })
      if (r.ok) {
        o.onFetched?.(docId, mine.source)
        const bound = attachmentBound(r.envelope, o)
        if (bound === undefined) return drop('attachment-too-large')
        b = bodyBudget(mine.source, mine.state, bound, mine.sent) // a body of its own
        return accept(docId, r.frame, r.envelope, from)
      }
      drop(`attachment-${r.reason}`)
      o.onLost?.(docId, r.reason, mine.source)
    })
  }

  function chunk(docId: string, env: Envelope, from: MemberId | undefined): void {
    o.metrics.chunksReceived.inc()
    b.sent = undefined // what chunks make spans several Signal messages: none carries it whole
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
    if (r.status === 'complete') accept(docId, r.frame, r.envelope, from)
  }

  function accept(docId: string, frame: Uint8Array, env: Envelope, from: MemberId | undefined): void {
    if (env.docId !== docId) return drop('wrong-document')
    if (env.kind === 'ack' || env.kind === 'error') return drop('local-only-kind')
    if (!BROWSER_KINDS.has(env.kind)) return drop('unexpected-kind')
    const { dedup } = b.state
    if (!isDeflated(env)) {
      if (dedup.seen(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
      return deliver(docId, frame, env, from)
    }
    if (o.readDeflate === false) return drop('unsupported-flag')
    // Checked before inflating (no work for a copy), recorded after (a corrupt copy does not
    // shadow a good one).
    if (dedup.has(env.docId, env.senderId, env.messageId, o.now())) return void o.metrics.dedupHits.inc()
    // One body inflates at most one frame's worth in all, however many deflated envelopes it packs.
    if (b.inflateBytes <= 0) return drop('body-budget')
    const plain = inflateFrame(env, Math.min(b.frameBytes, b.inflateBytes))
    if (!plain.ok) {
      b.inflateBytes = 0 // a bomb spends the whole budget
      return drop(plain.reason)
    }
    b.inflateBytes -= plain.envelope.payload.byteLength
    dedup.seen(env.docId, env.senderId, env.messageId, o.now())
    deliver(docId, plain.frame, plain.envelope, from)
  }

  function deliver(docId: string, frame: Uint8Array, env: Envelope, from: MemberId | undefined): void {
    // A body asks at most once: a batch of requests would make every member answer each of them.
    if (env.kind === 'sync-request' && ++b.syncRequests > 1) return drop('body-budget')
    o.metrics.envelopesOut.inc({ kind: env.kind })
    if (o.deliver(docId, frame, env, from, b.source) === true) o.refused?.(docId, from, b.sent)
  }

  return {
    handle(groupId, body, message) {
      const from = message?.from
      const docId = o.docOfGroup(groupId)
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
      const source = message?.source ?? ''
      b = bodyBudget(source, states.of(source), o.maxFrameBytes, message?.sent)
      if (env.kind === 'chunk') return chunk(docId, env, from)
      if (env.kind === 'attachment') {
        const own = frame.slice()
        return attachment(
          docId,
          groupId,
          decodeEnvelope(own, { maxPayloadBytes: o.maxFrameBytes }),
          from,
          message?.attachments ?? [],
        )
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
      return states.self.dedup.seen(docId, senderId, messageId, o.now())
    },
  }
}
