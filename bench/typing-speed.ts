/**
 * Section 2: a two-author session replayed at typing speed, keystroke-to-visible latency at B and
 * the Signal sends it costs, with the sidecar's default pacing; the same for y-websocket.
 *
 * Keystrokes: `seq_friendsforever_flat`. Its recorded timestamps are all 1970-01-01T00:00:00 (the
 * published file carries none), so the timing comes from the other recorded two-author session,
 * `concurrent_clownschool` (1-second stamps, sorted: the file is in causal, not time, order): idle
 * gaps over 2 s compressed to 2 s, keystrokes stamped within the same second spread evenly over it,
 * and the window taken from the middle of the session (its first minutes are slower than the rest).
 */
import * as Y from 'yjs'
import {
  ACCOUNTS,
  connectPair,
  PACING_DEFAULT,
  PACING_OFF,
  startBenchStack,
  untilDoc,
  untilSaved,
  type Pacing,
} from './stack.ts'
import { ms, percentiles, type Percentiles } from './stats.ts'
import { applyPatches, deletedChars, loadTrace, type SequentialTrace, type TimedTrace } from './traces.ts'
import { ConvergenceError } from './trace-replay.ts'
import { VisibilityTracker } from './visibility.ts'
import { startYws } from './y-websocket-baseline.ts'

export const TYPING_TRACE = 'seq_friendsforever_flat'
export const TIMING_TRACE = 'concurrent_clownschool'
/**
 * One person's typing: `concurrent_clownschool`'s agent 0, its main author (12,676 of its 23,136
 * keystrokes). A sidecar carries the typing of its own person; the two-author window above is
 * both people's keystrokes through one sidecar, in the session's fastest stretch.
 */
export const PERSON_AGENT = 0
const MAX_GAP_MS = 2000
/** Where in the compressed session the replayed window starts. */
const WINDOW_START_FRACTION = 0.5

/** Offsets (ms from the first keystroke) of the recorded session, gaps over 2 s compressed. */
export function sessionTimeline(timing: TimedTrace, agent?: number): number[] {
  const stamps = timing.txns
    .filter((t) => agent === undefined || t.agent === agent)
    .map((t) => Date.parse(t.time ?? ''))
    .sort((a, b) => a - b)
  const offsets: number[] = []
  let clock = 0
  for (let i = 0; i < stamps.length;) {
    let j = i
    while (j < stamps.length && stamps[j] === stamps[i]) j++
    const count = j - i
    for (let k = 0; k < count; k++) offsets.push(clock + (k * 1000) / count)
    const next = stamps[j]
    const current = stamps[i] ?? 0
    if (next === undefined) break
    clock += Math.min(MAX_GAP_MS, Math.max(1000, next - current))
    i = j
  }
  return offsets
}

/** A `windowMs` slice of the session timeline, from its middle, starting at 0. */
export function typingSchedule(timing: TimedTrace, windowMs: number): number[] {
  const timeline = sessionTimeline(timing)
  const from = (timeline.at(-1) ?? 0) * WINDOW_START_FRACTION
  const first = timeline.find((o) => o >= from) ?? 0
  return timeline.filter((o) => o >= first && o < first + windowMs).map((o) => o - first)
}

/**
 * One person's typing across the whole session: `windows` slices of `windowMs` at evenly spaced
 * points of `agent`'s compressed timeline (1/(windows + 1), 2/(windows + 1), …), each after the
 * one before with the timeline's longest gap between them. Where the two-author window is the
 * fastest stretch, this is what a person's typing looks like to their sidecar, pauses included.
 */
export function personSchedule(timing: TimedTrace, agent: number, windowMs: number, windows: number): number[] {
  const timeline = sessionTimeline(timing, agent)
  const end = timeline.at(-1) ?? 0
  const offsets: number[] = []
  let base = 0
  for (let k = 1; k <= windows; k++) {
    const first = timeline.find((o) => o >= (end * k) / (windows + 1))
    if (first === undefined) break
    const slice = timeline.filter((o) => o >= first && o < first + windowMs).map((o) => o - first + base)
    offsets.push(...slice)
    base = (offsets.at(-1) ?? base) + MAX_GAP_MS
  }
  return offsets
}

export interface TypingRun {
  readonly system: 'e2e-col' | 'e2e-col, pacing off' | 'y-websocket'
  readonly keystrokes: number
  readonly typingSeconds: number
  readonly latencyMs: Percentiles
  /** e2e-col: Signal sends by sidecar A; y-websocket: A's WebSocket messages. */
  readonly messages: number
  readonly messagesPerMinute: number
  readonly messagesPerSecond: number
  /**
   * e2e-col only: the sustained send rate, sends / (first to last send + one interval), as each
   * send at 1/s holds one second. Per typing second (above) counts the last send, which comes
   * after the typing, against the typing time: n sends of a 1/s pace then read n / (n − 1) per s.
   */
  readonly sustainedSendsPerSecond: number | null
}

const sleep = (t: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, t))

/** Types the trace's keystrokes into `docA` at `offsets`; `onKeystroke` gets each one's last position (a cursor). */
export async function typeOnSchedule(
  docA: Y.Doc,
  tracker: VisibilityTracker,
  trace: SequentialTrace,
  offsets: readonly number[],
  onKeystroke?: (position: number) => void,
): Promise<void> {
  const text = docA.getText('text')
  let deleted = 0
  const start = performance.now()
  for (let i = 0; i < offsets.length; i++) {
    const txn = trace.txns[i]
    if (txn === undefined) break
    const wait = start + (offsets[i] ?? 0) - performance.now()
    if (wait > 1) await sleep(wait)
    docA.transact(() => applyPatches(text, txn.patches))
    deleted += deletedChars(txn.patches)
    tracker.expect(Y.getState(docA.store, docA.clientID) + deleted, performance.now())
    const last = txn.patches.at(-1)
    if (last !== undefined) onKeystroke?.(last[0] + last[2].length)
  }
}

/** Sends per second over the span they took, each holding one interval of the pace. */
export function sustainedRate(timestamps: readonly number[], pacing: Pacing): number | null {
  const first = timestamps[0]
  const last = timestamps.at(-1)
  if (first === undefined || last === undefined) return null
  return timestamps.length / ((last - first) / 1000 + 1 / pacing.sendsPerSecond)
}

function finish(
  system: TypingRun['system'],
  tracker: VisibilityTracker,
  keystrokes: number,
  seconds: number,
  messages: number,
  sustained: number | null = null,
): TypingRun {
  if (tracker.outstanding !== 0)
    throw new ConvergenceError(`${system}: ${tracker.outstanding} keystrokes never became visible at B`)
  return {
    system,
    keystrokes,
    typingSeconds: seconds,
    latencyMs: percentiles(tracker.latencies),
    messages,
    messagesPerMinute: messages / (seconds / 60),
    messagesPerSecond: messages / seconds,
    sustainedSendsPerSecond: sustained,
  }
}

export async function typingE2e(
  trace: SequentialTrace,
  offsets: readonly number[],
  settleMs = PACING_DEFAULT.burst * 1000,
  pacing: Pacing = PACING_DEFAULT,
): Promise<TypingRun> {
  const stack = await startBenchStack({ pacing })
  try {
    const { a, docA, docB } = await connectPair(stack, stack.docIds[0] ?? '')
    // Let the startup sync traffic refill the bucket, as on a sidecar that has been idle.
    await sleep(settleMs)
    const before = stack.signalSends()
    const tracker = new VisibilityTracker(docB, docA.clientID)
    await typeOnSchedule(docA, tracker, trace, offsets)
    const textA = docA.getText('text').toString()
    await untilDoc(docB, () => docB.getText('text').toString() === textA)
    await untilSaved(a.connection)
    tracker.dispose()
    const seconds = (offsets.at(-1) ?? 0) / 1000 + 1
    const sendTimes = stack.toy
      .sends()
      .filter((s) => s.account === ACCOUNTS.a)
      .slice(before.byA)
      .map((s) => s.timestamp)
    return finish(
      pacing === PACING_OFF ? 'e2e-col, pacing off' : 'e2e-col',
      tracker,
      offsets.length,
      seconds,
      sendTimes.length,
      sustainedRate(sendTimes, pacing),
    )
  } finally {
    await stack.close()
  }
}

export async function typingYws(trace: SequentialTrace, offsets: readonly number[]): Promise<TypingRun> {
  const server = await startYws()
  const room = server.room()
  const docA = new Y.Doc()
  const docB = new Y.Doc()
  try {
    const a = await server.connect(room, docA)
    await server.connect(room, docB)
    const before = a.wire.sentMessages
    const tracker = new VisibilityTracker(docB, docA.clientID)
    await typeOnSchedule(docA, tracker, trace, offsets)
    const textA = docA.getText('text').toString()
    await untilDoc(docB, () => docB.getText('text').toString() === textA)
    tracker.dispose()
    const seconds = (offsets.at(-1) ?? 0) / 1000 + 1
    return finish('y-websocket', tracker, offsets.length, seconds, a.wire.sentMessages - before)
  } finally {
    await server.close()
    docA.destroy()
    docB.destroy()
  }
}

export interface TypingSpeedResult {
  readonly windowSeconds: number
  readonly e2e: TypingRun[]
  /** The same replay with pacing off: how much of the latency is pacing. */
  readonly e2ePacingOff: TypingRun
  readonly yws: TypingRun[]
  readonly targets: Record<string, boolean>
}

export interface TypingSpeedOptions {
  readonly quick: boolean
  /** Typing time replayed; default 15 s quick, 45 s full. */
  readonly windowMs?: number
  /** Idle time before typing, so the pacing bucket is full; default the burst's refill time. */
  readonly settleMs?: number
}

export async function benchTypingSpeed({ quick, windowMs, settleMs }: TypingSpeedOptions): Promise<TypingSpeedResult> {
  const trace = loadTrace(TYPING_TRACE)
  const offsets = typingSchedule(loadTrace<TimedTrace>(TIMING_TRACE), windowMs ?? (quick ? 15_000 : 45_000))
  const runs = quick ? 1 : 2
  const e2e: TypingRun[] = []
  const yws: TypingRun[] = []
  for (let i = 0; i < runs; i++) e2e.push(await typingE2e(trace, offsets, settleMs))
  const e2ePacingOff = await typingE2e(trace, offsets, 0, PACING_OFF)
  yws.push(await typingYws(trace, offsets))
  const worst = (f: (r: TypingRun) => number): number => Math.max(...e2e.map(f))
  return {
    windowSeconds: (offsets.at(-1) ?? 0) / 1000,
    e2e,
    e2ePacingOff,
    yws,
    targets: {
      // At the printed precision: request timestamps carry a few ms of jitter.
      atMostOneSendPerSecond: Number(worst((r) => r.sustainedSendsPerSecond ?? Infinity).toFixed(2)) <= 1,
      p50Under1200ms: worst((r) => r.latencyMs.p50) < 1200,
      p99Under3000ms: worst((r) => r.latencyMs.p99) < 3000,
    },
  }
}

export function printTypingSpeed(r: TypingSpeedResult): void {
  const rate = (r.e2e[0]?.keystrokes ?? 0) / Math.max(r.windowSeconds, 1)
  console.log(
    `\n## 2. Trace replay at typing speed (${TYPING_TRACE} keystrokes, ${TIMING_TRACE} timing: ${r.windowSeconds.toFixed(0)} s from mid-session, ${rate.toFixed(1)} keystrokes/s; default pacing ${PACING_DEFAULT.sendsPerSecond}/s burst ${PACING_DEFAULT.burst})\n`,
  )
  console.log(
    '| system | run | keystrokes | messages (e2e-col: Signal sends by A) | per minute of typing | per second of typing | sustained sends/s | p50 ms | p95 ms | p99 ms | max ms |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|---|')
  for (const [i, run] of [...r.e2e, r.e2ePacingOff, ...r.yws].entries()) {
    const l = run.latencyMs
    console.log(
      `| ${run.system} | ${i + 1} | ${run.keystrokes} | ${run.messages} | ${run.messagesPerMinute.toFixed(1)} | ${run.messagesPerSecond.toFixed(2)} | ${run.sustainedSendsPerSecond?.toFixed(2) ?? '–'} | ${ms(l.p50)} | ${ms(l.p95)} | ${ms(l.p99)} | ${ms(l.max)} |`,
    )
  }
  console.log('targets:', r.targets)
}
