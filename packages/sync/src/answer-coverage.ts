/**
 * What one asker is known to hold once answers to the group are seen: its state vector, extended
 * by each answer's struct ranges that connect to it (gaps excluded), and the delete sets the
 * answers carried. An answer that adds nothing (an empty one, say) covers nothing the asker lacks,
 * so it never stands in for a real one.
 */
import * as Y from 'yjs'

type DeleteSet = ReturnType<typeof Y.createDeleteSet>

/**
 * An answer (`sync-response` or `snapshot`) decoded once for any number of askers: per client, its
 * struct ranges sorted and merged where they touch, and its delete set.
 */
export interface PreparedAnswer {
  readonly ranges: ReadonlyMap<number, { readonly starts: readonly number[]; readonly ends: readonly number[] }>
  readonly ds: DeleteSet
}

/**
 * Client ranges one answer may be checked against, over every asker it is observed for (askers ×
 * the answer's clients): beyond it the answer is not counted for anyone, so each of them is
 * answered as if it had not been seen (one answer more, never one missed), and one message from
 * one member costs a bounded amount of work.
 */
export const OBSERVE_BUDGET = 1_000_000

/**
 * Decodes an answer for {@link AnswerCoverage.observe}.
 * @throws Error from Yjs on a malformed update
 */
export function prepareAnswer(update: Uint8Array): PreparedAnswer {
  const { structs, ds } = Y.decodeUpdate(update)
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
    // A well-formed update lists a client's structs in order; a hostile one need not.
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
  return { ranges, ds }
}

/** Counts `answer` for each of `coverages`, unless that would pass {@link OBSERVE_BUDGET}; whether it did. */
export function observeAll(coverages: readonly AnswerCoverage[], answer: PreparedAnswer): boolean {
  if (coverages.length * answer.ranges.size > OBSERVE_BUDGET) return false
  for (const coverage of coverages) coverage.observe(answer)
  return true
}

export class AnswerCoverage {
  readonly #covered: Map<number, number>
  readonly #deletes: DeleteSet[] = []
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
    this.#deletes.push(answer.ds)
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

  /** True when answers were seen and `doc` holds nothing, insertions or deletions, beyond what they gave. */
  covers(doc: Y.Doc): boolean {
    return this.#answered && !this.#ahead(doc) && this.#deletesCovered(doc)
  }

  #ahead(doc: Y.Doc): boolean {
    for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(doc)))
      if (clock > (this.#covered.get(client) ?? 0)) return true
    return false
  }

  /** True when every deletion `doc` knows of is in one of the answers' delete sets. */
  #deletesCovered(doc: Y.Doc): boolean {
    const ours = Y.createDeleteSetFromStructStore(doc.store)
    const theirs = Y.mergeDeleteSets(this.#deletes) // sorted, adjacent ranges merged
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
