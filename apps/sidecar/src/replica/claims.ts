/**
 * Members' claims to be ahead (a state vector in a `sync-request` or `health` holding clocks the
 * replica lacks), and what asking the group for them may cost, **per member whatever the claims
 * name**: new client ids, raised clocks and real edits alongside change nothing below.
 * - A member's claims are first asked for one `firstAskMs` after they are seen (or at once, when
 *   its request shows it ahead: the ask-back), so an honest member is repaired in the first round.
 * - After an ask on a member's account, its claims cause no other ask for `spacingMs`, whatever
 *   new claims come meanwhile: at most one ask per member per spacing.
 * - At the member's next ask, the claims the last one asked for are judged: all held now
 *   (repair confirmed them), the spacing goes back to `baseSpacingMs`; one still missing (shown
 *   false), the spacing doubles, up to `maxSpacingMs`. False claims make the next ones cheaper.
 * - A claim nobody delivers within `ttlMs` is given up; the member's spacing is kept.
 * @see docs/sidecar.md §8.4, docs/decisions/0024-claims-cost-per-member.md
 */
import * as Y from 'yjs'

export interface ClaimBookOptions {
  readonly doc: Y.Doc
  /** A member's claim seen at `now` waits this long (jittered by the caller) before its first ask. */
  readonly firstAskMs: () => number
  readonly baseSpacingMs: number
  readonly maxSpacingMs: number
  readonly ttlMs: number
  /**
   * The members' claims and spacings, kept by the caller across the document's stays in memory
   * ({@link createClaimants}), so taking it out and in again never makes false claims cheap again;
   * new ones by default.
   */
  readonly members?: Claimants | undefined
}

export interface ClaimBook {
  /** A member's state vector was seen. */
  note(stateVector: ReadonlyMap<number, number>, member: string, now: number): void
  /**
   * Marks the members whose claims are due as asked for; true when there is one (the caller asks).
   * `atOnce`: a member's request showed it ahead, its claims need not wait `firstAskMs`.
   */
  take(now: number, atOnce?: boolean): boolean
  /** When the next claim comes due (undefined: none lacking). */
  nextDue(now: number): number | undefined
  /** The member's current spacing (for tests and diagnostics). */
  spacingOf(member: string): number | undefined
  /** How many of the member's claims are tracked (for tests and diagnostics). */
  claimsOf(member: string): number
}

// Clients tracked at once over all members (a state vector lists one per editing session), how
// many one member's claims may add, and how many members are remembered (least recent forgotten).
export const MAX_CLAIMS = 4096
export const MAX_CLAIMS_PER_MEMBER = 256
export const MAX_MEMBERS = 256

interface Claim {
  clock: number
  at: number
  dueAt: number
}

interface Member {
  readonly claims: Map<number, Claim>
  /** Earliest time of the next ask on this member's account. */
  nextAt: number
  spacing: number
  /** What the last ask on its account asked for (client → clock), judged at the next. */
  probe: Map<number, number> | undefined
}

/** When a member's claims come due (`atOnce`: counted from when they were seen). */
function dueAt(m: Member, atOnce: boolean): number {
  let first = Number.POSITIVE_INFINITY
  for (const c of m.claims.values()) first = Math.min(first, atOnce ? c.at : c.dueAt)
  return Math.max(m.nextAt, first)
}

/** Each member's claims and spacing (at most {@link MAX_MEMBERS}, least recent forgotten). */
export type Claimants = Map<string, Member>

export const createClaimants = (): Claimants => new Map()

export function createClaimBook(o: ClaimBookOptions): ClaimBook {
  const members = o.members ?? createClaimants()
  let total = 0
  for (const m of members.values()) total += m.claims.size
  const held = (client: number): number => Y.getState(o.doc.store, client)

  /** Drops claims that are met or given up; true while the member still lacks something. */
  const lacks = (m: Member, now: number): boolean => {
    for (const [client, c] of m.claims) {
      if (held(client) >= c.clock || now - c.at > o.ttlMs) {
        m.claims.delete(client)
        total -= 1
      }
    }
    return m.claims.size > 0
  }

  const memberFor = (key: string): Member => {
    let m = members.get(key)
    if (m !== undefined) {
      members.delete(key) // re-inserted below: the map runs from least to most recent
    } else {
      m = { claims: new Map(), nextAt: Number.NEGATIVE_INFINITY, spacing: o.baseSpacingMs, probe: undefined }
      const [oldestKey, oldest] = members.size >= MAX_MEMBERS ? (members.entries().next().value ?? []) : []
      if (oldestKey !== undefined && oldest !== undefined) {
        total -= oldest.claims.size
        members.delete(oldestKey)
      }
    }
    members.set(key, m)
    return m
  }

  const askFor = (m: Member, now: number): void => {
    if (m.probe !== undefined) {
      let confirmed = true
      for (const [client, clock] of m.probe) if (held(client) < clock) confirmed = false
      m.spacing = confirmed ? o.baseSpacingMs : Math.min(o.maxSpacingMs, m.spacing * 2)
    }
    m.probe = new Map([...m.claims].map(([client, c]) => [client, c.clock]))
    m.nextAt = now + m.spacing
  }

  return {
    note(stateVector, key, now) {
      let m: Member | undefined
      for (const [client, clock] of stateVector) {
        if (clock <= held(client)) continue
        m ??= memberFor(key)
        const c = m.claims.get(client)
        if (c !== undefined) {
          c.clock = Math.max(c.clock, clock)
          continue
        }
        if (total >= MAX_CLAIMS || m.claims.size >= MAX_CLAIMS_PER_MEMBER) break
        m.claims.set(client, { clock, at: now, dueAt: now + o.firstAskMs() })
        total += 1
      }
    },
    take(now, atOnce = false) {
      let any = false
      for (const m of members.values()) {
        if (!lacks(m, now) || dueAt(m, atOnce) > now) continue
        askFor(m, now)
        any = true
      }
      return any
    },
    nextDue(now) {
      let next: number | undefined
      for (const m of members.values()) if (lacks(m, now)) next = Math.min(next ?? Infinity, dueAt(m, false))
      return next
    },
    spacingOf: (key) => members.get(key)?.spacing,
    claimsOf: (key) => members.get(key)?.claims.size ?? 0,
  }
}
