/**
 * Section 11: what authorship costs on Signal (decisions/0023). The typing replay of section 2
 * twice, each on a fresh stack (so A's page writes under a client id the group has not seen): once
 * with A's page told its account's author tag (derived client ids, below 2^42, announced in the
 * `health` record `authors`), once with `E2E_COL_DERIVED_CLIENT_IDS=0` (Yjs's own 32-bit ids, as
 * before 0023). Counted: A's Signal sends and body bytes from the first keystroke until the
 * announcement window after the last has passed, per edit. Goal: at most 5 % more.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { authorTagOf } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { ACCOUNTS, PACING_DEFAULT, startBenchStack, untilDoc, untilSaved } from './stack.ts'
import { loadTrace, type SequentialTrace, type TimedTrace } from './traces.ts'
import { TIMING_TRACE, TYPING_TRACE, typeOnSchedule, typingSchedule } from './typing-speed.ts'
import { VisibilityTracker } from './visibility.ts'

export interface AuthorshipRun {
  /** Whether A's page wrote under an account-derived client id. */
  readonly derived: boolean
  readonly keystrokes: number
  /** A's Signal sends and their body bytes over the typing. */
  readonly sendsA: number
  readonly bytesA: number
  readonly sendsPerEdit: number
  readonly bytesPerEdit: number
}

export interface AuthorshipCostResult {
  /** Derived ids / Yjs's own, in A's sends and body bytes over the same typing. */
  readonly sendsRatio: number
  readonly bytesRatio: number
  readonly targets: Record<string, boolean>
  readonly windowSeconds: number
  readonly runs: { readonly off: AuthorshipRun; readonly on: AuthorshipRun }
}
// Longer than the sidecar's announcement delay (1 s), so a pending announcement is counted.
const ANNOUNCE_WINDOW_MS = 2000

async function run(
  trace: SequentialTrace,
  offsets: readonly number[],
  derived: boolean,
  settleMs: number,
): Promise<AuthorshipRun> {
  const stack = await startBenchStack({
    pacing: PACING_DEFAULT,
    env: { E2E_COL_DERIVED_CLIENT_IDS: derived ? '1' : '0' },
  })
  try {
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const docId = stack.docIds[0] ?? ''
    const a = await stack.connect('a', docId, docA)
    await stack.connect('b', docId, docB)
    await untilSaved(a.connection)
    await sleep(settleMs)
    const mine = () => stack.toy.sends().filter((s) => s.account === ACCOUNTS.a)
    const before = mine().length
    const tracker = new VisibilityTracker(docB, docA.clientID)
    await typeOnSchedule(docA, tracker, trace, offsets)
    const textA = docA.getText('text').toString()
    await untilDoc(docB, () => docB.getText('text').toString() === textA)
    await untilSaved(a.connection)
    await sleep(ANNOUNCE_WINDOW_MS)
    tracker.dispose()
    const counted = mine().slice(before)
    const bytesA = counted.reduce((n, s) => n + s.message.length + (s.attachmentBytes ?? 0), 0)
    const wroteDerived = authorTagOf(docA.clientID) !== undefined
    if (wroteDerived !== derived)
      throw new Error(`A's page wrote under ${docA.clientID}: expected ${derived ? 'a derived' : "Yjs's own"} id`)
    return {
      derived,
      keystrokes: offsets.length,
      sendsA: counted.length,
      bytesA,
      sendsPerEdit: counted.length / offsets.length,
      bytesPerEdit: bytesA / offsets.length,
    }
  } finally {
    await stack.close()
  }
}

export async function benchAuthorshipCost({ quick }: { quick: boolean }): Promise<AuthorshipCostResult> {
  const trace = loadTrace(TYPING_TRACE)
  const offsets = typingSchedule(loadTrace<TimedTrace>(TIMING_TRACE), quick ? 10_000 : 60_000)
  const settle = quick ? 2000 : PACING_DEFAULT.burst * 1000
  const off = await run(trace, offsets, false, settle)
  const on = await run(trace, offsets, true, settle)
  const sendsRatio = on.sendsA / off.sendsA
  const bytesRatio = on.bytesA / off.bytesA
  return {
    sendsRatio,
    bytesRatio,
    targets: { sendsUnder5Percent: sendsRatio <= 1.05, bytesUnder5Percent: bytesRatio <= 1.05 },
    windowSeconds: (offsets.at(-1) ?? 0) / 1000,
    runs: { off, on },
  }
}

export function printAuthorshipCost(r: AuthorshipCostResult): void {
  console.log(
    `\n## 11. Authorship cost: derived client ids (${TYPING_TRACE} at ${TIMING_TRACE} timing, ${r.windowSeconds.toFixed(0)} s; A types on a fresh page, B watches)\n`,
  )
  console.log('| client ids | keystrokes | Signal sends by A | body bytes by A | sends per edit | bytes per edit |')
  console.log('|---|---|---|---|---|---|')
  for (const x of [r.runs.off, r.runs.on])
    console.log(
      `| ${x.derived ? 'derived (2^42)' : "Yjs's own (2^32)"} | ${x.keystrokes} | ${x.sendsA} | ${x.bytesA} | ${x.sendsPerEdit.toFixed(4)} | ${x.bytesPerEdit.toFixed(1)} |`,
    )
  console.log(`derived / Yjs's own (sends): ${r.sendsRatio.toFixed(3)}; (bytes): ${r.bytesRatio.toFixed(3)}`)
  console.log('targets:', r.targets)
}
