/**
 * Sends one body to a group through the backend, until Signal took it, definitely refused it, or
 * the queue closed. Transient failures (no network, daemon down) are retried with jittered
 * backoff; after `retry.attempts` of them Signal counts as away (reachability.ts) and from then on
 * each try waits for the sidecar's one probe turn, which every try gives back in one place
 * ({@link endTurn}). A rate limit (-5) pauses the group and sends the same body again; a send that
 * reached only some members (a partial RATE_LIMIT_FAILURE) is sent again after the pause, bounded.
 * @see docs/sidecar.md §4.4, daemon-contract.md §6.7
 */
import type { RefusalCode } from '@e2e-col/protocol'
import { nextDelay, type SendResult } from '@e2e-col/signal-cli'
import { DEFAULT_RATE_LIMIT_PAUSE_MS, type Pace } from './pace.ts'
import type { SendQueueOptions } from './queue-types.ts'
import { classifySendFailure, rpcFacts } from './send-failure.ts'

/** How a body's send ended. */
export type Outcome =
  | { kind: 'sent' }
  | { kind: 'rejected'; code: RefusalCode; message: string; rpcCode: number | undefined }
  | { kind: 'closed' }

/** A body sent while some recipient was rate limited, to send again once the pause is over. */
export interface Resend {
  readonly body: string
  readonly attachments: readonly string[] | undefined
}

/** The queue's own settings the sender reads, its pace, and the queue's closing signal. */
export type SenderOptions = Pick<
  SendQueueOptions,
  'groupId' | 'backend' | 'reach' | 'retry' | 'now' | 'sleep' | 'rng' | 'metrics' | 'logger'
> & {
  readonly pace: Pace
  /** Aborted when the queue closes. */
  readonly signal: AbortSignal
}

export interface Sender {
  /**
   * Sends one body; `tokenHeld` when the caller already took this send's token. With
   * `attachments`, any failure but a rate limit is final: the caller falls back to text.
   */
  send(body: string, tokenHeld?: boolean, attachments?: readonly string[]): Promise<Outcome>
  /** The oldest body waiting to be sent again after a partial rate limit. */
  nextResend(): Resend | undefined
  readonly resending: boolean
}

/** One try of one body, before anything is concluded from it. */
type Attempt =
  | { kind: 'sent'; result: SendResult }
  | { kind: 'closed' }
  | { kind: 'rate-limited'; retryAfterSeconds: number | undefined }
  | { kind: 'rejected'; message: string; rpcCode: number | undefined }
  | { kind: 'transient'; failure: 'network' | 'daemon-down'; error: unknown }

const CLOSED = { kind: 'closed' } as const

/**
 * What one send puts on each recipient's inbound byte budget: the body's UTF-8 bytes and each
 * attachment's decoded bytes (a data URI's base64 is 4 characters for 3 bytes), before Signal's
 * own framing and encryption, which the budget's margin (docs/sidecar.md §4.2) covers.
 */
export function sendBytes(body: string, attachments?: readonly string[]): number {
  let bytes = Buffer.byteLength(body, 'utf8')
  for (const a of attachments ?? []) bytes += Math.ceil(((a.length - a.indexOf(',') - 1) * 3) / 4)
  return bytes
}

export function createSender(o: SenderOptions): Sender {
  const resends: Resend[] = []
  const resendTries = new Map<string, number>()

  async function attemptOnce(body: string, tokenHeld: boolean, attachments?: readonly string[]): Promise<Attempt> {
    if (!tokenHeld && !(await o.pace.takeToken())) return CLOSED
    const bytes = sendBytes(body, attachments)
    if (!(await o.pace.takeBytes(bytes))) return CLOSED
    const started = o.now()
    try {
      const result = await (attachments === undefined
        ? o.backend.sendGroupMessage(o.groupId, body)
        : o.backend.sendGroupMessage(o.groupId, body, attachments))
      o.metrics.sendLatency.observe((o.now() - started) / 1000)
      return { kind: 'sent', result }
    } catch (error) {
      const failure = classifySendFailure(error)
      if (failure === 'rate-limited')
        return { kind: 'rate-limited', retryAfterSeconds: rpcFacts(error)?.retryAfterSeconds }
      // A failed attachment send (not rate limited) goes back as text, where a network failure is handled.
      if (failure === 'rejected' || attachments !== undefined)
        return { kind: 'rejected', message: (error as Error).message, rpcCode: rpcFacts(error)?.rpcCode }
      if (o.signal.aborted) return CLOSED
      return { kind: 'transient', failure, error }
    } finally {
      // Whether or not it failed, Signal may have counted the bytes on arrival.
      o.pace.bytesLanded(bytes, started)
    }
  }

  /** The one place a try gives back what it holds of Signal's state: the probe turn, if it probed. */
  function endTurn(attempt: Attempt, probing: boolean): void {
    if (attempt.kind === 'sent') return o.reach.succeeded()
    if (!probing) return
    // A failed probe: the reachability logs state changes only, so a long absence costs no lines.
    if (attempt.kind === 'transient') o.reach.failed(attempt.failure, true)
    else o.reach.settled()
  }

  /** A partial RATE_LIMIT_FAILURE is still a send (at least one recipient got it); slow down. */
  function afterSent(body: string, attachments: readonly string[] | undefined, result: SendResult): void {
    const waits = (result.results ?? [])
      .filter((r) => r.type === 'RATE_LIMIT_FAILURE')
      .map((r) => r.retryAfterSeconds ?? undefined)
    if (waits.length === 0) return void resendTries.delete(body)
    o.pace.rateLimited(Math.max(...waits.map((w) => w ?? DEFAULT_RATE_LIMIT_PAUSE_MS / 1000)))
    // The limited recipients never got it: send the same body to the group again after the
    // pause (bounded); members that did get it deduplicate it by message id.
    const tries = (resendTries.get(body) ?? 0) + 1
    if (tries < o.retry.attempts) {
      resendTries.set(body, tries)
      resends.push({ body, attachments })
    } else resendTries.delete(body)
  }

  async function send(body: string, tokenHeld = false, attachments?: readonly string[]): Promise<Outcome> {
    let failures = 0
    let held = tokenHeld
    for (;;) {
      // While Signal is away only the holder of the probe turn sends.
      const probing = o.reach.state !== 'reachable'
      if (probing) {
        if (!(await o.reach.turn(o.signal))) return CLOSED
        o.metrics.signalProbes.inc()
      }
      const attempt = await attemptOnce(body, held, attachments)
      held = false
      endTurn(attempt, probing)
      switch (attempt.kind) {
        case 'sent':
          afterSent(body, attachments, attempt.result)
          return { kind: 'sent' }
        case 'closed':
          return CLOSED
        case 'rejected':
          return { kind: 'rejected', code: 'SIDECAR_SEND_REJECTED', message: attempt.message, rpcCode: attempt.rpcCode }
        case 'rate-limited':
          // Definitely not sent: wait out the pause and send the same body again.
          o.pace.rateLimited(attempt.retryAfterSeconds)
          continue
        case 'transient':
          o.metrics.sendRetries.inc()
          if (probing) continue
          o.logger.debug({ err: attempt.error, attempt: failures }, 'send failed; will retry')
          failures += 1
          if (failures >= o.retry.attempts) {
            failures = 0
            o.reach.failed(attempt.failure, false)
            continue
          }
          await o.sleep(nextDelay(failures - 1, { baseMs: o.retry.baseMs, maxMs: o.retry.maxMs }, o.rng), o.signal)
          if (o.signal.aborted) return CLOSED
      }
    }
  }

  return {
    send,
    nextResend: () => resends.shift(),
    get resending() {
      return resends.length > 0
    },
  }
}
