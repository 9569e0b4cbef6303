import type { Timers } from './timers.ts'

/** A hand-driven clock for unit tests: time moves only through `advance`. */
export function manualTimers(): Timers & { advance(ms: number): void; pending(): number; jump(ms: number): void } {
  let now = 0
  let nextId = 1
  const timers = new Map<number, { at: number; fn: () => void }>()
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++
      timers.set(id, { at: now + Math.max(0, ms), fn })
      return id
    },
    clearTimeout(handle) {
      timers.delete(handle as number)
    },
    advance(ms) {
      const until = now + ms
      for (;;) {
        let due: [number, { at: number; fn: () => void }] | undefined
        for (const entry of timers)
          if (entry[1].at <= until && (due === undefined || entry[1].at < due[1].at)) due = entry
        if (due === undefined) break
        timers.delete(due[0])
        now = due[1].at
        due[1].fn()
      }
      now = until
    },
    pending: () => timers.size,
    /** Steps the wall clock (NTP, a resumed VM); pending timers still fire after their delay, as real ones do. */
    jump(ms) {
      now += ms
      for (const timer of timers.values()) timer.at += ms
    },
  }
}

/** A seeded PRNG (mulberry32), so fuzz failures replay exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** FNV-1a of a text, to mix names into seeds. */
function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/**
 * An independent seeded stream for one consumer of a run (`'edits'`, `'client-0'`, ...): what one
 * consumer draws, and when, never shifts another's numbers.
 */
export function seededStream(seed: number, purpose: string): () => number {
  return seededRandom(hash32(`${seed}:${purpose}`))
}
