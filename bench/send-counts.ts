/** What the toy accepted as Signal sends: counted the same whether the toy runs here or in a child. */
import type { SendRecord } from '@e2e-col/toy-signal'

export interface SendCounts {
  /** Sends (bodies) by both sidecars, and their UTF-8 bytes. */
  readonly count: number
  readonly bytes: number
  /** Sends by `accountA`'s sidecar: the messages the edits cost. */
  readonly byA: number
  readonly bytesA: number
}

export function countSends(sends: readonly SendRecord[], accountA: string): SendCounts {
  let bytes = 0
  let byA = 0
  let bytesA = 0
  for (const s of sends) {
    const length = Buffer.byteLength(s.message)
    bytes += length
    if (s.account !== accountA) continue
    byA += 1
    bytesA += length
  }
  return { count: sends.length, bytes, byA, bytesA }
}
