/**
 * Signal's pace, as the open-source server limits it (`RateLimiters`: leaky buckets of size N that
 * drain one permit per period): `messages` 60, one per second, per sender → destination;
 * `attachmentCreate` 50, one per 1.2 s, per sender; `inboundMessageBytes` 128 MiB, about 2,000
 * bytes a second, per destination (whoever sends; the open-source server checks it on individual
 * sends, the toy on every send, so a sender that keeps under it is safe either way). A request past
 * the bucket is refused and does not count. Time is injected.
 * @see reference `signal-cli-wire.md` §9
 */

/** One bucket's shape. */
export interface BucketShape {
  size: number
  /** Milliseconds per permit drained. */
  periodMs: number
}

/** The limiters; `inboundBytes` counts bytes (its period is per byte). */
export interface PaceLimits {
  messages: BucketShape
  attachments: BucketShape
  inboundBytes: BucketShape
}

/** The open-source server's defaults. */
export const SIGNAL_PACE: PaceLimits = {
  messages: { size: 60, periodMs: 1000 },
  attachments: { size: 50, periodMs: 1200 },
  inboundBytes: { size: 128 * 1024 * 1024, periodMs: 0.5 },
}

/** A permit, or how long until one would be granted (whole seconds, at least 1, as Retry-After). */
export type PaceAnswer = { ok: true } | { ok: false; retryAfterSeconds: number }

export interface SignalPace {
  /** False in count-only mode: requests past the pace are counted as refused but go through. */
  readonly enforced: boolean
  /** One message from `sender` to `destination`. */
  message(sender: string, destination: string, now: number): PaceAnswer
  /** One attachment upload by `sender`. */
  attachment(sender: string, now: number): PaceAnswer
  /** `bytes` of content reaching `destination`. */
  inboundBytes(destination: string, bytes: number, now: number): PaceAnswer
  /** Requests refused so far, by limiter. */
  refused(): PaceRefusals
}

/** Requests refused (or, counting only, that would have been), by limiter. */
export interface PaceRefusals {
  messages: number
  attachments: number
  inboundBytes: number
}

// Buckets idle long enough to be empty are forgotten, so memory follows the active pairs only.
const MAX_BUCKETS = 100_000

export function createSignalPace(limits: PaceLimits = SIGNAL_PACE, enforced = true): SignalPace {
  // Level = permits in use at `at`; it drains by one per period.
  const levels = new Map<string, { level: number; at: number }>()
  const refused: PaceRefusals = { messages: 0, attachments: 0, inboundBytes: 0 }

  function check(key: string, shape: BucketShape, now: number, weight = 1): PaceAnswer {
    const b = levels.get(key)
    const level = b === undefined ? 0 : Math.max(0, b.level - (now - b.at) / shape.periodMs)
    // A refused request takes nothing (counting only, it still goes through: as if Signal took it).
    if (level + weight > shape.size)
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil(((level + weight - shape.size) * shape.periodMs) / 1000)),
      }
    levels.delete(key)
    levels.set(key, { level: level + weight, at: now })
    if (levels.size > MAX_BUCKETS) {
      const oldest = levels.keys().next().value
      if (oldest !== undefined) levels.delete(oldest)
    }
    return { ok: true }
  }

  return {
    enforced,
    message(sender, destination, now) {
      const a = check(`m\u0000${sender}\u0000${destination}`, limits.messages, now)
      if (!a.ok) refused.messages += 1
      return a
    },
    attachment(sender, now) {
      const a = check(`a\u0000${sender}`, limits.attachments, now)
      if (!a.ok) refused.attachments += 1
      return a
    },
    inboundBytes(destination, bytes, now) {
      const a = check(`b\u0000${destination}`, limits.inboundBytes, now, bytes)
      if (!a.ok) refused.inboundBytes += 1
      return a
    },
    refused: () => ({ ...refused }),
  }
}
