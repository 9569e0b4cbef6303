/**
 * Posting to the chat group, with the delivery rule: a body is sent only right after a membership
 * check passed, and whatever stands in the way (a stranger in the group, a daemon error on the check
 * or on the send) withholds the rest, says so locally and tries again with backoff. A reply either
 * gets into the group whole, or is given up after making no progress for `stallMs` and the caller
 * reports it failed. Bodies after the first `paceBurst` are paced `paceMs` apart. Every sent
 * timestamp is remembered, so the echo of our own post is recognised by id.
 */
import { asSignalCliFailure } from '@e2e-col/signal-cli'
import { asChatError, type ChatError } from '../errors.ts'
import type { ChatSignal } from '../signal/port.ts'
import { backoffDelay, pause } from '../backoff.ts'
import { chunkReply } from './chunker.ts'
import type { DaemonHealth } from '../signal/daemon-health.ts'
import { checkMembership } from './membership.ts'
import { formatDuration } from './messages.ts'
import { createSentTimestamps } from './sent-timestamps.ts'

export interface PosterOptions {
  signal: ChatSignal
  groupId: string
  /** The loop's account and the operators: nobody else may be in the group when we post. */
  allowed: ReadonlySet<string>
  health: DaemonHealth
  membershipBaseMs: number
  membershipMaxMs: number
  /** Bodies of one reply sent back to back before pacing starts. */
  paceBurst: number
  /** Gap between paced bodies. */
  paceMs: number
  log(line: string): void
  onWithheld(reason: string, remaining: number): Promise<void>
  /** `file`: the name of the file the body carried. */
  onPosted(text: string, timestamp: number, file: string | undefined): Promise<void>
}

/** How one post ended. `posted`/`total` count bodies. */
export type PostResult =
  | { kind: 'posted'; total: number }
  | { kind: 'aborted'; posted: number; total: number }
  | { kind: 'stalled'; posted: number; total: number; reason: string }

/** Progress of one post, for `status`. */
export interface PostProgress {
  onPart?(posted: number, total: number): void
  onHeld?(reason: string, posted: number, total: number): void
}

export interface PostOptions {
  progress?: PostProgress | undefined
  /** Give up after this long without a body delivered; default never (notices). */
  stallMs?: number | undefined
  /** The first body of a reply in several says how many follow and how to stop them. */
  lead?: boolean | undefined
}

/** A file sent with a body: its name on the phone and its bytes (already redacted). */
export interface PostedFile {
  name: string
  contentType: string
  data: Uint8Array
}

export interface Poster {
  /** Posts already-redacted text, chunked, by the delivery rule. Throws only `CHAT_DAEMON_LOST` (or a bug). */
  post(text: string, abort: AbortSignal, options?: PostOptions): Promise<PostResult>
  /** Posts one body (already redacted, within one message) with `file` attached, by the same rule. */
  postFile(text: string, file: PostedFile, abort: AbortSignal, options?: PostOptions): Promise<PostResult>
  isOwnPost(timestamp: number): boolean
  /** Resolves once every send in flight has its timestamp (the echo of one may arrive first). */
  settled(): Promise<void>
  lastCheck(): { at: number; ok: boolean } | undefined
}

/** A daemon answer worth waiting out: a JSON-RPC error (rate limit, internal error, a failed check). */
function retryable(err: unknown): err is ChatError {
  return asChatError(err)?.code === 'CHAT_RPC'
}

/** The daemon's JSON-RPC code and the pause it asked for (a -5 rate limit), when it said. */
function rpcDetails(err: ChatError): { rpcCode: number; retryAfterSeconds: number | undefined } | undefined {
  // The chat's CHAT_RPC keeps the daemon client's error as its cause: branch on its code.
  const cause = asSignalCliFailure(err.cause)
  return cause?.code === 'SIDECAR_SIGNAL_RPC_ERROR'
    ? { rpcCode: cause.rpcCode, retryAfterSeconds: cause.retryAfterSeconds }
    : undefined
}

const LEAD = (total: number) => `${total - 1} more part(s) follow; send cancel to stop them.`

/** One message of a post: its text and the data URIs of its attachments. */
interface Body {
  text: string
  attachments?: readonly string[]
  file?: string
}

/** signal-cli's attachment form for a send: an RFC 2397 data URI carrying the file name. */
export function dataUri(file: PostedFile): string {
  return `data:${file.contentType};filename=${encodeURIComponent(file.name)};base64,${Buffer.from(file.data).toString('base64')}`
}

export function createPoster(o: PosterOptions): Poster {
  const sent = createSentTimestamps()
  const inflight = new Set<Promise<number>>()
  let last: { at: number; ok: boolean } | undefined

  async function send(body: Body, abort: AbortSignal): Promise<number> {
    // Remembered inside the in-flight promise, so settled() never resolves before it is known.
    const sending = o.health
      .call('send', () => o.signal.sendGroup(o.groupId, body.text, body.attachments), abort)
      .then((t) => {
        sent.remember(t)
        return t
      })
    inflight.add(sending)
    return sending.finally(() => inflight.delete(sending))
  }

  async function deliver(chunks: readonly Body[], abort: AbortSignal, options: PostOptions): Promise<PostResult> {
    const total = chunks.length
    const stallMs = options.stallMs ?? Number.POSITIVE_INFINITY
    let posted = 0
    let attempt = 0
    let progressAt = Date.now()
    let reason = ''
    let why = ''
    while (posted < total) {
      if (abort.aborted) return { kind: 'aborted', posted, total }
      if (Date.now() - progressAt > stallMs) return { kind: 'stalled', posted, total, reason }
      let step: 'listGroups' | 'send' = 'listGroups'
      let waitAtLeastMs = 0
      try {
        if (posted >= o.paceBurst && attempt === 0) await pause(o.paceMs, abort)
        if (abort.aborted) return { kind: 'aborted', posted, total }
        const verdict = checkMembership(
          await o.health.call('listGroups', () => o.signal.groupMembership(o.groupId), abort),
          o.allowed,
        )
        last = { at: Date.now(), ok: verdict.ok }
        if (verdict.ok) {
          const chunk = chunks[posted] as Body
          step = 'send'
          const timestamp = await send(chunk, abort)
          posted++
          attempt = 0
          progressAt = Date.now()
          options.progress?.onPart?.(posted, total)
          await o.onPosted(chunk.text, timestamp, chunk.file)
          continue
        }
        reason = verdict.reason
        why = `membership check failed (${reason})`
      } catch (err) {
        if (abort.aborted) return { kind: 'aborted', posted, total }
        if (!retryable(err)) throw err
        const rpc = rpcDetails(err)
        reason = rpc === undefined ? `daemon error on ${step}` : `daemon error ${rpc.rpcCode} on ${step}`
        why = `${reason} (${err.message})`
        waitAtLeastMs = (rpc?.retryAfterSeconds ?? 0) * 1000
      }
      const delay = Math.max(
        waitAtLeastMs,
        backoffDelay(attempt++, { baseMs: o.membershipBaseMs, maxMs: o.membershipMaxMs }),
      )
      const left = total - posted
      o.log(`${why}: withholding ${left} message(s); trying again in ${formatDuration(delay)}`)
      options.progress?.onHeld?.(reason, posted, total)
      await o.onWithheld(reason, left)
      await pause(Math.min(delay, Math.max(0, stallMs - (Date.now() - progressAt)) + 1), abort)
    }
    return { kind: 'posted', total }
  }

  return {
    post: (text, abort, options = {}) =>
      deliver(
        chunkReply(text, undefined, options.lead === true ? { lead: LEAD } : {}).map((t) => ({ text: t })),
        abort,
        options,
      ),
    postFile: (text, file, abort, options = {}) =>
      deliver([{ text, attachments: [dataUri(file)], file: file.name }], abort, options),
    isOwnPost: (t) => sent.has(t),
    async settled() {
      if (inflight.size > 0) await Promise.allSettled(inflight)
    },
    lastCheck: () => last,
  }
}
