/**
 * Each document's side of the capability rule (contract §4.10): the sidecar announces what it
 * reads in a `health` envelope (§3.12), once with `hello` at start, and answers another member's
 * `hello` once, after a short random delay (several hellos in that time get one answer), and a
 * member's hellos at most once per `helloGapMs`: a later one in that time is answered when the gap
 * ends (one answer however many came), so a member repeating `hello` costs each other member one
 * announcement per gap. What the
 * members announced is kept in the {@link Roster}; the send path asks it before using a form an
 * older member could not read. A sidecar configured with no capabilities announces nothing, as one
 * from before capabilities did.
 */
import { decodeHealth, encodeHealth, MAX_ANNOUNCED_AUTHORS, PROTOCOL_VERSION, type Health } from '@e2e-col/protocol'
import { createRoster, type MemberId, type Roster } from './roster.ts'

export interface CapabilityExchangeOptions {
  /** This account, so its own announcements (another device) are not counted as a member's. */
  self: MemberId
  /** Feature bits this sidecar reads (CAPABILITY). */
  features: number
  /** Puts a health payload into the document's send queue. */
  send: (payload: Uint8Array) => void
  /** The answer to a hello waits uniformly in [min, max] ms. */
  answerDelayMs: { min: number; max: number }
  /** Least time between two answers to the same member's hellos. */
  helloGapMs: number
  now: () => number
  random: () => number
  /**
   * This account's client ids, oldest first (decisions/0023): the newest 64 ride in every capability
   * announcement, the older ones follow in announcements of their own (64 each), so a member who
   * joins later verifies all of them, as the members who saw them written did.
   */
  authors?: () => readonly number[]
  /** The members it counts (made by the caller when others read it first); a new one by default. */
  roster?: Roster
}

// Members whose last answered hello is remembered; the least recently heard is forgotten beyond.
const MAX_HELLO_SENDERS = 256

export interface CapabilityExchange {
  readonly roster: Roster
  /** Announces with `hello`, so every member announces back (at start). */
  hello(): void
  /**
   * A health envelope from the group. True when it was an announcement (kept here, not for
   * browsers); false for a bare probe or anything unreadable, which goes on as before.
   */
  onHealth(from: MemberId | undefined, payload: Uint8Array): boolean
  /** Stops announcing `feature` (this machine cannot use it after all) and announces again. */
  withdraw(feature: number): void
  /**
   * Stops announcing `feature` without announcing: the group heard the withdrawal already (the
   * document left memory and came back while it held).
   */
  keepWithdrawn(feature: number): void
  /** Announces `feature` again, if this sidecar was configured to read it and had withdrawn it. */
  restore(feature: number): void
  /** The feature bits announced now. */
  readonly features: number
  readonly announcements: { sent: number; received: number }
  dispose(): void
}

export function createCapabilityExchange(o: CapabilityExchangeOptions): CapabilityExchange {
  const roster = o.roster ?? createRoster(o.self)
  let features = o.features
  let answer: ReturnType<typeof setTimeout> | undefined
  const counts = { sent: 0, received: 0 }
  const announcing = o.features !== 0
  // Member key → when the answer to its last hello went (or will go) out.
  const answered = new Map<string, number>()
  let answerAt = 0

  function answerHello(from: MemberId | undefined): void {
    const key = from?.uuid ?? from?.number ?? ''
    const now = o.now()
    const last = answered.get(key)
    const { min, max } = o.answerDelayMs
    const at = Math.max(now + min + (max - min) * o.random(), last === undefined ? now : last + o.helloGapMs)
    // One answer goes to the whole group: one already due by then covers this hello too.
    const covered = answer !== undefined && answerAt <= at
    answered.delete(key)
    answered.set(key, covered ? answerAt : at)
    if (answered.size > MAX_HELLO_SENDERS) answered.delete(answered.keys().next().value as string)
    if (covered) return
    if (answer !== undefined) clearTimeout(answer)
    answerAt = at
    answer = setTimeout(() => {
      answer = undefined
      announce(false)
    }, at - now)
  }

  function announce(hello: boolean): void {
    if (!announcing) return
    counts.sent += 1
    const all = o.authors?.() ?? []
    const authors = all.slice(-MAX_ANNOUNCED_AUTHORS)
    const health: Health = {
      capabilities: { envelopeVersion: PROTOCOL_VERSION, features },
      ...(hello ? { hello } : {}),
      ...(authors.length > 0 ? { authors } : {}),
    }
    o.send(encodeHealth(health))
    const older = all.slice(0, -MAX_ANNOUNCED_AUTHORS)
    for (let at = 0; at < older.length; at += MAX_ANNOUNCED_AUTHORS)
      o.send(encodeHealth({ authors: older.slice(at, at + MAX_ANNOUNCED_AUTHORS) }))
  }

  return {
    roster,
    hello: () => announce(true),
    onHealth(from, payload) {
      if (!announcing) return false
      let health: Health
      try {
        health = decodeHealth(payload)
      } catch {
        return false
      }
      if (health.capabilities === undefined && health.hello !== true) return false
      counts.received += 1
      if (from !== undefined) roster.announced(from, health.capabilities)
      if (health.hello === true) answerHello(from)
      return true
    },
    withdraw(feature) {
      if ((features & feature) === 0) return
      features &= ~feature
      announce(false)
    },
    keepWithdrawn(feature) {
      features &= ~feature
    },
    restore(feature) {
      const back = feature & o.features & ~features
      if (back === 0) return
      features |= back
      announce(false)
    },
    get features() {
      return features
    },
    announcements: counts,
    dispose() {
      if (answer !== undefined) clearTimeout(answer)
      answer = undefined
    },
  }
}
