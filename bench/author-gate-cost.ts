/**
 * Section 12: what the author gate (decisions/0023) costs per update a member sends, through the
 * sidecar's own book and gate (`@e2e-col/sidecar/internals`) over rows kept in memory (the store's
 * writes are not counted) and a Y.Doc replica. One keystroke per update, as a page sends at typing
 * speed, in four cases:
 * - **derived**: Bob's page writes under an id made from his account's tag (what pages of 0023 do);
 * - **legacy**: the same under a Yjs-drawn id (the first-seen binding of 0021, kept for old pages);
 * - **relayed diff**: each update also carries Alice's keystroke the replica already holds (an old
 *   page's diff while two people type), stripped by the gate before the replica applies it;
 * - **forged**: each update also carries a struct under Alice's id the replica lacks, stripped and
 *   counted.
 * And an announcement flood: 100 announcements of 64 new ids each into a book already at its bound
 * (8,192 rows from 16 members), per id. Figures are medians over rounds; not a test: numbers vary with the machine.
 */
import { clientIdFor, encodeHealth } from '@e2e-col/protocol'
import {
  authorTagOfAccount,
  createAuthorBook,
  createAuthorGate,
  createLogger,
  createMetrics,
} from '@e2e-col/sidecar/internals'
import * as Y from 'yjs'

const ALICE = '+15555550101'
const BOB = '+15555550102'
const ROUNDS = 5

export interface AuthorGateCase {
  readonly name: string
  readonly updates: number
  /** Median microseconds per update through the gate (judging, stripping), the replica's apply apart. */
  readonly gateUs: number
  /** What the replica holds at the end: checks that every update was taken. */
  readonly chars: number
}

export interface AuthorGateCostResult {
  readonly cases: readonly AuthorGateCase[]
  /** Median microseconds per announced id, 100 announcements of 64 new ids into a book at its 8,192 rows. */
  readonly announceUsPerId: number
  readonly announcedKept: number
}

function gateOver(replica: Y.Doc) {
  const metrics = createMetrics()
  return createAuthorGate({
    docId: 'bench',
    book: createAuthorBook({
      self: { number: ALICE },
      rows: { load: () => [], put: () => {}, remove: () => {}, batch: (fn) => fn() },
      maxPerAccount: 512,
      maxEntries: 8192,
      tagOfNumber: authorTagOfAccount,
    }),
    held: (clientId) => Y.getState(replica.store, clientId),
    // Nothing waits in these replicas: every update is whole.
    heldOrWaiting: () => (clientId) => Y.getState(replica.store, clientId),
    announce: () => {},
    announceDelayMs: 1000,
    timers: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} },
    storing: (fn) => fn(),
    metrics,
    logger: createLogger('silent'),
  })
}

/** One keystroke of `doc` as the update a page sends. */
function keystroke(doc: Y.Doc, char: string): Uint8Array {
  const before = Y.encodeStateVector(doc)
  const t = doc.getText('t')
  t.insert(t.length, char)
  return Y.encodeStateAsUpdate(doc, before)
}

type Kind = 'derived' | 'legacy' | 'relayed diff' | 'forged'

/** The updates Bob's page sends for `n` keystrokes, made before the clock starts. */
function updatesFor(kind: Kind, n: number, replica: Y.Doc): Uint8Array[] {
  const bob = new Y.Doc()
  bob.clientID = kind === 'legacy' ? 0x0b0b : clientIdFor(authorTagOfAccount(BOB), 7)
  const alice = new Y.Doc()
  alice.clientID = clientIdFor(authorTagOfAccount(ALICE), 9)
  const out: Uint8Array[] = []
  for (let i = 0; i < n; i += 1) {
    const own = keystroke(bob, 'b')
    if (kind === 'relayed diff') {
      const hers = keystroke(alice, 'a')
      Y.applyUpdate(replica, hers) // the replica has Alice's keystroke from her own update
      out.push(Y.mergeUpdates([hers, own]))
    } else if (kind === 'forged') out.push(Y.mergeUpdates([keystroke(alice, 'x'), own]))
    else out.push(own)
  }
  return out
}

function runCase(kind: Kind, n: number): { us: number; chars: number } {
  const replica = new Y.Doc()
  const updates = updatesFor(kind, n, replica)
  const gate = gateOver(replica)
  const from = { number: BOB }
  let spent = 0
  for (const u of updates) {
    const start = process.hrtime.bigint()
    const rest = gate.admit('update', u, from)
    spent += Number(process.hrtime.bigint() - start)
    if (rest !== undefined) Y.applyUpdate(replica, rest)
  }
  const bobChars = replica.getText('t').toString().replaceAll('a', '').length
  return { us: spent / 1000 / n, chars: bobChars }
}

function announceFlood(): { usPerId: number; kept: number } {
  const gate = gateOver(new Y.Doc())
  // Fill the book to its bound first (16 members × 512 ids): the flood then forgets as it binds.
  for (let m = 0; m < 16; m += 1) {
    const number = `+1555555${String(2000 + m)}`
    const tagOfM = authorTagOfAccount(number)
    for (let i = 0; i < 512; i += 64) {
      const ids = Array.from({ length: 64 }, (_, k) => clientIdFor(tagOfM, i + k))
      gate.health({ number }, encodeHealth({ authors: ids }))
    }
  }
  const tag = authorTagOfAccount(BOB)
  const payloads = Array.from({ length: 100 }, (_round, a) =>
    encodeHealth({ authors: Array.from({ length: 64 }, (_, k) => clientIdFor(tag, 100_000 + a * 64 + k)) }),
  )
  const start = process.hrtime.bigint()
  for (const p of payloads) gate.health({ number: BOB }, p)
  const ns = Number(process.hrtime.bigint() - start)
  return { usPerId: ns / 1000 / 6400, kept: gate.authors().length }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

export function benchAuthorGateCost({ quick }: { quick: boolean }): AuthorGateCostResult {
  const n = quick ? 500 : 5000
  const kinds: Kind[] = ['derived', 'legacy', 'relayed diff', 'forged']
  const cases = kinds.map((kind) => {
    const runs = Array.from({ length: quick ? 1 : ROUNDS }, () => runCase(kind, n))
    const chars = runs[0]?.chars ?? 0
    if (chars !== n) throw new Error(`BENCH_NOT_CONVERGED: ${kind}: ${chars} of ${n} keystrokes taken`)
    return { name: kind, updates: n, gateUs: median(runs.map((r) => r.us)), chars }
  })
  const floods = Array.from({ length: quick ? 1 : ROUNDS }, announceFlood)
  return { cases, announceUsPerId: median(floods.map((f) => f.usPerId)), announcedKept: floods[0]?.kept ?? 0 }
}

export function printAuthorGateCost(r: AuthorGateCostResult): void {
  console.log('\n## 12. Author gate CPU per member update (decisions/0023; one keystroke per update)\n')
  console.log('| update | updates | µs per update in the gate | keystrokes taken |')
  console.log('|---|---|---|---|')
  for (const c of r.cases) console.log(`| ${c.name} | ${c.updates} | ${c.gateUs.toFixed(1)} | ${c.chars} |`)
  console.log(
    `announcement flood (100 × 64 new ids into a full book): ${r.announceUsPerId.toFixed(2)} µs per id; rows kept: ${r.announcedKept}`,
  )
}
