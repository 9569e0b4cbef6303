/** Types of settle.mjs (a plain module: the scale children run it under plain `node`). */
export function settle(options?: {
  readonly stableMs?: number
  readonly maxMs?: number
  readonly toleranceBytes?: number
}): Promise<{ rss: number; afterMs: number; stable: boolean }>
