/**
 * Section 8: what presence costs in Signal sends. The typing replay of section 2 twice in the same
 * run, through the same stack: once without awareness, once with it on both sides and A's cursor
 * moving with every keystroke (as an editor binding does). Presence rides behind edits, so the goal
 * is under 5 % more sends by A per minute of typing. B only watches: its sends are presence alone.
 */
import * as Y from 'yjs'
import { ACCOUNTS, PACING_DEFAULT, startBenchStack, untilDoc, untilSaved } from './stack.ts'
import { loadTrace, type SequentialTrace, type TimedTrace } from './traces.ts'
import { TIMING_TRACE, TYPING_TRACE, typeOnSchedule, typingSchedule } from './typing-speed.ts'
import { VisibilityTracker } from './visibility.ts'

export interface PresenceRun {
  readonly presence: boolean
  readonly keystrokes: number
  readonly typingSeconds: number
  /** Signal sends by A (the typist) over the typing, and per minute. */
  readonly sendsA: number
  readonly sendsAPerMinute: number
  /** Signal sends by B (watching, not typing). */
  readonly sendsB: number
}

export interface PresenceCostResult {
  readonly windowSeconds: number
  readonly off: PresenceRun
  readonly on: PresenceRun
  /** on / off, A's sends per minute of typing. */
  readonly ratio: number
  readonly targets: Record<string, boolean>
}

const sleep = (t: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, t))

async function run(
  trace: SequentialTrace,
  offsets: readonly number[],
  presence: boolean,
  settleMs: number,
): Promise<PresenceRun> {
  const stack = await startBenchStack({ pacing: PACING_DEFAULT })
  try {
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const docId = stack.docIds[0] ?? ''
    const extra = presence ? { awareness: {} } : {}
    const a = await stack.connect('a', docId, docA, extra)
    const b = await stack.connect('b', docId, docB, extra)
    a.connection.awareness?.setLocalStateField('user', { name: 'Alice', color: '#d1495b' })
    b.connection.awareness?.setLocalStateField('user', { name: 'Bob', color: '#00798c' })
    await untilSaved(a.connection)
    // Start-up (sync, the first presence) refills the bucket before the counted window.
    await sleep(settleMs)
    const count = (account: string): number => stack.toy.sends().filter((s) => s.account === account).length
    const beforeA = count(ACCOUNTS.a)
    const beforeB = count(ACCOUNTS.b)
    const tracker = new VisibilityTracker(docB, docA.clientID)
    const text = docA.getText('text')
    await typeOnSchedule(docA, tracker, trace, offsets, (position) => {
      const cursor = Y.relativePositionToJSON(
        Y.createRelativePositionFromTypeIndex(text, Math.min(position, text.length)),
      )
      a.connection.awareness?.setLocalStateField('cursor', { anchor: cursor, head: cursor })
    })
    const textA = text.toString()
    await untilDoc(docB, () => docB.getText('text').toString() === textA)
    await untilSaved(a.connection)
    tracker.dispose()
    const typingSeconds = (offsets.at(-1) ?? 0) / 1000 + 1
    const sendsA = count(ACCOUNTS.a) - beforeA
    return {
      presence,
      keystrokes: offsets.length,
      typingSeconds,
      sendsA,
      sendsAPerMinute: sendsA / (typingSeconds / 60),
      sendsB: count(ACCOUNTS.b) - beforeB,
    }
  } finally {
    await stack.close()
  }
}

export async function benchPresenceCost({
  quick,
  windowMs,
  settleMs,
}: {
  quick: boolean
  windowMs?: number
  settleMs?: number
}): Promise<PresenceCostResult> {
  const trace = loadTrace(TYPING_TRACE)
  const offsets = typingSchedule(loadTrace<TimedTrace>(TIMING_TRACE), windowMs ?? (quick ? 10_000 : 60_000))
  const settle = settleMs ?? (quick ? 2000 : PACING_DEFAULT.burst * 1000)
  const off = await run(trace, offsets, false, settle)
  const on = await run(trace, offsets, true, settle)
  const ratio = on.sendsAPerMinute / off.sendsAPerMinute
  return {
    windowSeconds: (offsets.at(-1) ?? 0) / 1000,
    off,
    on,
    ratio,
    targets: { presenceUnder5Percent: ratio < 1.05 },
  }
}

export function printPresenceCost(r: PresenceCostResult): void {
  console.log(
    `\n## 8. Presence cost (${TYPING_TRACE} at ${TIMING_TRACE} timing, ${r.windowSeconds.toFixed(0)} s; A types with a moving cursor, B watches)\n`,
  )
  console.log('| presence | keystrokes | Signal sends by A | A per minute of typing | Signal sends by B (watching) |')
  console.log('|---|---|---|---|---|')
  for (const x of [r.off, r.on]) {
    console.log(
      `| ${x.presence ? 'on' : 'off'} | ${x.keystrokes} | ${x.sendsA} | ${x.sendsAPerMinute.toFixed(1)} | ${x.sendsB} |`,
    )
  }
  console.log(`presence / no presence (A's sends per minute): ${r.ratio.toFixed(3)}`)
  console.log('targets:', r.targets)
}
