/**
 * Which versions a document keeps, by a policy a person can read: every version of the last
 * `allDays`, then the newest of each day up to `dailyDays`, then the newest of each month; and
 * never more than `maxBytes` of versions per document (the oldest go first). The newest version is
 * always kept. Pure: the store deletes what this drops and the sidecar logs it.
 * @see docs/sidecar.md "History"
 */

export type { RetentionPolicy } from '../config.ts'
import type { RetentionPolicy } from '../config.ts'

export const DEFAULT_RETENTION: RetentionPolicy = { allDays: 7, dailyDays: 90, maxBytes: 32 * 1024 * 1024 }

export interface StoredVersionShape {
  readonly id: number
  /** ms since the epoch. */
  readonly at: number
  readonly bytes: number
}

export type DropReason = 'one-a-day' | 'one-a-month' | 'byte-bound'

export interface Dropped {
  readonly id: number
  readonly at: number
  readonly reason: DropReason
}

const DAY_MS = 86_400_000

/** The versions to drop from `versions` at `now` (any order in, newest-first decisions). */
export function versionsToDrop(
  versions: readonly StoredVersionShape[],
  now: number,
  policy: RetentionPolicy,
): Dropped[] {
  const newestFirst = [...versions].sort((a, b) => b.at - a.at || b.id - a.id)
  const dropped: Dropped[] = []
  const kept: StoredVersionShape[] = []
  const seen = new Set<string>()
  newestFirst.forEach((v, index) => {
    const age = now - v.at
    if (index === 0 || age <= policy.allDays * DAY_MS) return void kept.push(v)
    const daily = age <= policy.dailyDays * DAY_MS
    const d = new Date(v.at)
    const bucket = daily ? `d${d.toISOString().slice(0, 10)}` : `m${d.getUTCFullYear()}-${d.getUTCMonth()}`
    if (seen.has(bucket)) return void dropped.push({ id: v.id, at: v.at, reason: daily ? 'one-a-day' : 'one-a-month' })
    seen.add(bucket)
    kept.push(v)
  })
  let bytes = kept.reduce((n, v) => n + v.bytes, 0)
  for (let i = kept.length - 1; i > 0 && bytes > policy.maxBytes; i--) {
    const v = kept[i] as StoredVersionShape
    bytes -= v.bytes
    dropped.push({ id: v.id, at: v.at, reason: 'byte-bound' })
  }
  return dropped
}
