/**
 * What one asker is known to hold once answers to the group are seen: its state vector, extended
 * by each answer's struct ranges that connect to it (gaps excluded), and the delete sets the
 * answers carried. An answer that adds nothing (an empty one, say) covers nothing the asker lacks,
 * so it never stands in for a real one.
 */
import * as Y from 'yjs'
import { decodeSections } from './update-sections.ts'

type DeleteSet = ReturnType<typeof Y.createDeleteSet>

/**
 * An answer (`sync-response` or `snapshot`) decoded once for any number of askers: per client, its
 * struct ranges sorted and merged where they touch, and its delete set.
 */
export interface PreparedAnswer {
  readonly ranges: ReadonlyMap<number, { readonly starts: readonly number[]; readonly ends: readonly number[] }>
  readonly ds: DeleteSet
  /** What observing it costs one asker: its clients and its delete ranges. */
  readonly cost: number
}

/**
 * Work one answer may cost over every asker it is observed for (askers × its clients and delete
 * ranges): beyond it the answer is not counted for anyone, so each of them is answered as if it
 * had not been seen (one answer more, never one missed), and one message from one member costs a
 * bounded amount of work.
 */
export const OBSERVE_BUDGET = 1_000_000

const NOTHING: PreparedAnswer = { ranges: new Map(), ds: Y.createDeleteSet(), cost: 0 }

/**
 * Decodes an answer for {@link AnswerCoverage.observe}. One that lists a client twice (Yjs never
 * does; applying it keeps only the last section) counts for nothing: its ranges could claim what
 * the asker never gets.
 * @throws Error from Yjs on a malformed update
 */
export function prepareAnswer(update: Uint8Array): PreparedAnswer {
  const { structs, ds, repeated } = decodeSections(update)
  if (repeated) return NOTHING
  const raw = new Map<number, [number, number][]>()
  for (const struct of structs) {
    if (struct instanceof Y.Skip) continue
    const { client, clock } = struct.id
    let list = raw.get(client)
    if (list === undefined) raw.set(client, (list = []))
    list.push([clock, clock + struct.length])
  }
  const ranges = new Map<number, { starts: number[]; ends: number[] }>()
  for (const [client, list] of raw) {
    // Sorted and merged where they touch or overlap (a struct may repeat part of another).
    list.sort((a, b) => a[0] - b[0])
    const starts: number[] = []
    const ends: number[] = []
    for (const [start, end] of list) {
      const last = ends.length - 1
      if (last >= 0 && start <= (ends[last] ?? 0)) ends[last] = Math.max(ends[last] ?? 0, end)
      else {
        starts.push(start)
        ends.push(end)
      }
    }
    ranges.set(client, { starts, ends })
  }
  let deletes = 0
  for (const items of ds.clients.values()) deletes += items.length
  return { ranges, ds, cost: ranges.size + deletes }
}

/** Counts `answer` for each of `coverages`, unless that would pass {@link OBSERVE_BUDGET}; whether it did. */
export function observeAll(coverages: readonly AnswerCoverage[], answer: PreparedAnswer): boolean {
  if (coverages.length * answer.cost > OBSERVE_BUDGET) return false
  for (const coverage of coverages) coverage.observe(answer)
  return true
}

export class AnswerCoverage {
  readonly #covered: Map<number, number>
  /** The answers' delete sets, merged as they come (sorted, adjacent ranges joined). */
  #deletes: DeleteSet = Y.createDeleteSet()
  #answered = false

  /** @param stateVector the asker's, decoded */
  constructor(stateVector: ReadonlyMap<number, number>) {
    this.#covered = new Map(stateVector)
  }

  /** The asker's state vector as now known: what an answer still has to carry lies beyond it. */
  known(): Map<number, number> {
    return new Map(this.#covered)
  }

  /** Some answer was seen since. */
  get answered(): boolean {
    return this.#answered
  }

  /** An answer seen: its ranges that start at or before what the asker holds extend it (gaps excluded). */
  observe(answer: PreparedAnswer): void {
    this.#answered = true
    if (answer.ds.clients.size > 0) this.#deletes = Y.mergeDeleteSets([this.#deletes, answer.ds])
    for (const [client, { starts, ends }] of answer.ranges) {
      const have = this.#covered.get(client) ?? 0
      // The last range starting at or before `have`; merged, so none after it touches `have`.
      let lo = 0
      let hi = starts.length - 1
      let at = -1
      while (lo <= hi) {
        const mid = (lo + hi) >> 1
        if ((starts[mid] ?? 0) <= have) {
          at = mid
          lo = mid + 1
        } else hi = mid - 1
      }
      const end = ends[at] ?? 0
      if (at >= 0 && end > have) this.#covered.set(client, end)
    }
  }

  /**
   * True when answers were seen and `held` (a document, or what one held at some moment:
   * `Y.snapshot(doc)`) holds nothing, insertions or deletions, beyond what they gave.
   */
  covers(held: Y.Doc | Y.Snapshot): boolean {
    const { sv, ds } = 'sv' in held ? held : Y.snapshot(held)
    return this.#answered && !this.#ahead(sv) && this.#deletesCovered(ds)
  }

  #ahead(sv: ReadonlyMap<number, number>): boolean {
    for (const [client, clock] of sv) if (clock > (this.#covered.get(client) ?? 0)) return true
    return false
  }

  /** True when every deletion in `ours` is in one of the answers' delete sets. */
  #deletesCovered(ours: DeleteSet): boolean {
    const theirs = this.#deletes
    for (const [client, ranges] of ours.clients) {
      const cover = theirs.clients.get(client) ?? []
      let i = 0
      for (const { clock, len } of ranges) {
        while (i < cover.length && (cover[i]?.clock ?? 0) + (cover[i]?.len ?? 0) <= clock) i += 1
        const c = cover[i]
        if (c === undefined || c.clock > clock || c.clock + c.len < clock + len) return false
      }
    }
    return true
  }
}
