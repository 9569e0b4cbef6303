/**
 * Drives the toy daemon's fault switches while a soak runs: streams cut every few seconds, and for
 * each new send, with fixed probabilities, one fault armed for the next request (HTTP 500 before
 * processing, processed-then-unanswered, a duplicated event, a per-recipient rate limit).
 */
import { BODY_PREFIX, decodeBody, decodeChunk, decodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import type { SendRecord, ToySignal } from '@e2e-col/toy-signal'
import type { Rng } from './rng.ts'

export interface FaultRates {
  /** Per send: the next rpc fails with HTTP 500 before processing. */
  failBefore: number
  /** Per send: the next send is processed and its answer never comes. */
  dropAnswer: number
  /** Per send: the next two events are written twice. */
  duplicate: number
  /** Per send: the next send's first recipient is rate limited. */
  rateLimit: number
  /** Per send: a short outage, every attempt of the next send fails (Signal counts as away for the sidecar; it keeps the envelopes and probes). */
  outage: number
  /** Failed requests in one outage (the sidecar's E2E_COL_SEND_ATTEMPTS). */
  outageLength: number
  /** Range of the pause between two stream cuts, ms. */
  cutEveryMs: readonly [number, number]
  /** retryAfterSeconds of the rate-limit answers. */
  retryAfterSeconds: number
}

export const DEFAULT_RATES: FaultRates = {
  failBefore: 0.05,
  dropAnswer: 0.05,
  duplicate: 0.03,
  rateLimit: 0.03,
  outage: 0.01,
  outageLength: 4,
  cutEveryMs: [2000, 4000],
  retryAfterSeconds: 1,
}

export type FaultKind =
  | 'stream-cut'
  | 'fail-before-processing'
  | 'processed-unanswered'
  | 'duplicate-delivery'
  | 'redeliver-chunked'
  | 'rate-limit-per-recipient'
  | 'outage'
  | 'sidecar-restart'
  | 'page-reload'

export class FaultInjector {
  readonly counts = new Map<FaultKind, number>()
  sendsSeen = 0
  lastFaultAt = 0
  readonly #toy: ToySignal
  readonly #rng: { readonly sends: Rng; readonly cuts: Rng }
  readonly #rates: FaultRates
  #timer: NodeJS.Timeout | undefined
  #lastSend: SendRecord | undefined
  #nextCutAt = 0
  /** While armed: the chunks seen since, by messageId, with the sends that carried them. */
  #redeliver: { bodies: Map<string, { count: number; indexes: Set<number>; sends: SendRecord[] }> } | undefined

  /** `rng.sends` draws one number per send seen, `rng.cuts` one per stream cut: two generators, so the count of one never shifts the other. */
  constructor(toy: ToySignal, rng: { readonly sends: Rng; readonly cuts: Rng }, rates: FaultRates = DEFAULT_RATES) {
    this.#toy = toy
    this.#rng = rng
    this.#rates = rates
  }

  start(): void {
    this.#nextCutAt = Date.now() + this.#cutPause()
    this.#timer = setInterval(() => this.#tick(), 25)
  }

  /** Stops arming faults and clears any still armed. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
    this.#toy.faults.reset()
  }

  /**
   * Arms a second Signal copy of the next envelope sent in chunks (a large paste, a snapshot):
   * once all its bodies are on Signal, the same bodies are sent again from the same account, as a
   * redelivery would bring them, after the first copy was reassembled and delivered.
   */
  redeliverNextChunked(): void {
    if (this.#timer === undefined || this.#redeliver !== undefined) return
    this.#redeliver = { bodies: new Map() }
  }

  /** Records a fault injected by the soak itself (restart, reload). */
  note(kind: FaultKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1)
    this.lastFaultAt = Date.now()
  }

  #cutPause(): number {
    const [min, max] = this.#rates.cutEveryMs
    return min + this.#rng.cuts() * (max - min)
  }

  /** Index of the first send not seen yet (the log returns copies and keeps only the latest 10 000). */
  #newFrom(sends: ReadonlyArray<SendRecord>): number {
    const last = this.#lastSend
    if (last === undefined) return 0
    for (let i = sends.length - 1; i >= 0; i--) {
      const s = sends[i] as SendRecord
      if (s.timestamp === last.timestamp && s.account === last.account && s.message === last.message) return i + 1
    }
    return 0
  }

  /** The chunked message armed for redelivery, once all its bodies were sent: sent again. */
  #checkRedelivery(fresh: ReadonlyArray<SendRecord>): void {
    const r = this.#redeliver
    if (r === undefined) return
    for (const s of fresh) {
      for (const part of chunksIn(s.message)) {
        let m = r.bodies.get(part.messageId)
        if (m === undefined) r.bodies.set(part.messageId, (m = { count: part.count, indexes: new Set(), sends: [] }))
        m.indexes.add(part.index)
        if (!m.sends.includes(s)) m.sends.push(s)
        if (m.indexes.size < m.count) continue
        this.#redeliver = undefined
        this.note('redeliver-chunked')
        void this.#resend(m.sends)
        return
      }
    }
  }

  async #resend(bodies: readonly SendRecord[]): Promise<void> {
    for (const s of bodies) {
      // Best effort, like the fault itself: a refused resend (an armed failure) is no redelivery.
      await fetch(`${this.#toy.url}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'soak-redeliver',
          method: 'send',
          params: { account: s.account, groupId: s.groupId, message: s.message },
        }),
      }).then(
        (res) => res.text(),
        () => '',
      )
    }
  }

  #tick(): void {
    const now = Date.now()
    if (now >= this.#nextCutAt) {
      this.#toy.faults.cutStreams()
      this.note('stream-cut')
      this.#nextCutAt = now + this.#cutPause()
    }
    const sends = this.#toy.sends()
    const fresh = sends.length - this.#newFrom(sends)
    this.#checkRedelivery(sends.slice(sends.length - fresh))
    this.#lastSend = sends[sends.length - 1]
    const f = this.#toy.faults
    const r = this.#rates
    for (let i = 0; i < fresh; i++) {
      this.sendsSeen += 1
      const x = this.#rng.sends()
      if (x < r.failBefore) {
        f.failNextRpc(1)
        this.note('fail-before-processing')
      } else if (x < r.failBefore + r.dropAnswer) {
        f.dropNextSends(1)
        this.note('processed-unanswered')
      } else if (x < r.failBefore + r.dropAnswer + r.duplicate) {
        f.duplicateNextEvents(2)
        this.note('duplicate-delivery')
      } else if (x < r.failBefore + r.dropAnswer + r.duplicate + r.rateLimit) {
        f.rateLimitNextSends(1, { retryAfterSeconds: r.retryAfterSeconds, mode: 'per-recipient' })
        this.note('rate-limit-per-recipient')
      } else if (x < r.failBefore + r.dropAnswer + r.duplicate + r.rateLimit + r.outage) {
        f.failNextRpc(r.outageLength)
        this.note('outage')
      }
    }
  }
}

/** The chunks an e2e-col body carries (alone or in a batch): message id, index, count. */
function chunksIn(message: string): { messageId: string; index: number; count: number }[] {
  if (!message.startsWith(BODY_PREFIX)) return []
  try {
    const env = decodeEnvelope(decodeBody(message))
    const all: Envelope[] = env.kind === 'batch' ? unpackBatch(env) : [env]
    return all.filter((e) => e.kind === 'chunk').map((e) => ({ messageId: e.messageId, ...decodeChunk(e) }))
  } catch {
    return []
  }
}
