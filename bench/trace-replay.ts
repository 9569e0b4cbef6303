/**
 * Section 1: replay the automerge-paper trace (one transaction per keystroke) as fast as possible,
 * (a) into one Y.Doc with no network (the local floor), (b) client A → sidecar A → toy → sidecar B
 * → client B with the toy and both sidecars in child processes (the topology of real use), (b')
 * the same pipe all in this process (kept for continuity with earlier figures), (c) y-websocket
 * A → server → B with the server in a child process, compared with (b), and (c') with the server
 * in this process, compared with (b'); each ends only when the receiving text equals the
 * expected text (the trace's endContent for a full replay), else the bench fails.
 * They are interleaved in each counted round, so their ratios come from the same conditions.
 */
import { decodeEnvelope } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { startProcessStack, type ReplayStack } from './process-stack.ts'
import { connectPair, PACING_DEFAULT, PACING_OFF, startBenchStack, untilDoc, untilSaved, type Pacing } from './stack.ts'
import type { SendsByPurpose } from './send-counts.ts'
import { collectGarbage, range, stat, type Stat } from './stats.ts'
import { applyPatches, loadTrace, type SequentialTrace } from './traces.ts'
import { startYws, type YwsServer } from './y-websocket-baseline.ts'

export const REPLAY_TRACE = 'seq-ascii_automerge-paper'
/** Sidecar settings of the replays: attachments off, so every large envelope goes as text (section 7 compares the two). */
export const TEXT_PATH: Readonly<Record<string, string>> = { E2E_COL_CAPABILITIES: 'deflate' }
/** Keystrokes applied between two turns of the event loop, so the pipe works while typing goes on. */
const YIELD_EVERY = 1000

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

export class ConvergenceError extends Error {
  readonly code = 'BENCH_NOT_CONVERGED'
}

/** The keystrokes to replay and the text B must end with. */
export interface Replay {
  readonly txns: SequentialTrace['txns']
  readonly expected: string
}

export function replayOf(trace: SequentialTrace, keystrokes?: number): Replay {
  if (keystrokes === undefined || keystrokes >= trace.txns.length)
    return { txns: trace.txns, expected: trace.endContent }
  const txns = trace.txns.slice(0, keystrokes)
  const doc = new Y.Doc()
  const text = doc.getText('text')
  for (const txn of txns) applyPatches(text, txn.patches)
  return { txns, expected: text.toString() }
}

async function typeAll(doc: Y.Doc, replay: Replay): Promise<void> {
  const text = doc.getText('text')
  let i = 0
  for (const txn of replay.txns) {
    doc.transact(() => applyPatches(text, txn.patches))
    if (++i % YIELD_EVERY === 0) await yieldToLoop()
  }
}

function check(label: string, actual: string, expected: string): void {
  if (actual !== expected)
    throw new ConvergenceError(
      `${label}: the receiving document differs from the expected text (${actual.length} vs ${expected.length} chars)`,
    )
}

/** Types the replay into A and times it until B holds the expected text (checked). */
async function timeReplay(label: string, docA: Y.Doc, docB: Y.Doc, replay: Replay): Promise<number> {
  const textB = docB.getText('text')
  const start = performance.now()
  const converged = untilDoc(
    docB,
    () => textB.length === replay.expected.length && textB.toString() === replay.expected,
  )
  await typeAll(docA, replay)
  await converged
  const ms = performance.now() - start
  check(label, textB.toString(), replay.expected)
  return ms
}

/**
 * The local floor. With `listen`, an empty `update` listener is attached: Yjs then encodes every
 * transaction's update, which every provider (e2e-col's client and y-websocket alike) pays for.
 */
export async function replayLocal(replay: Replay, listen = false): Promise<number> {
  collectGarbage()
  const doc = new Y.Doc()
  if (listen) doc.on('update', () => {})
  const start = performance.now()
  await typeAll(doc, replay)
  const elapsed = performance.now() - start
  check('local floor', doc.getText('text').toString(), replay.expected)
  doc.destroy()
  return elapsed
}

/** What the wire-efficiency section needs from an e2e-col replay. */
export interface E2eCapture {
  /** Envelope frames client A sent (`update` and `snapshot` only). */
  readonly frames: Uint8Array[]
  /** Yjs payload bytes in those frames. */
  payloadBytes: number
}

export interface E2eRun {
  readonly ms: number
  /** Signal sends (bodies) by both sidecars, and their UTF-8 bytes. */
  readonly signalSends: number
  readonly signalBytes: number
  /** Sends by sidecar A: the messages the edits cost. */
  readonly sendsA: number
  readonly bytesA: number
  /** Sidecar A's sends split by what they carried (sync traffic and resends depend on timing). */
  readonly sendsAByPurpose: SendsByPurpose
  readonly clientFrames: number
  /**
   * Sidecar A's sends when B converged. The rest went out after: B can converge early through the
   * replica's sync answer while A's queue still paces out the edits it holds.
   */
  readonly sendsAAtConvergence: number
  /** Messages Signal's pace refused during the run (enforced at the default pacing) or would have (counted with pacing off). */
  readonly refusedBySignal: number
}

/** Where the toy and the sidecars run: each in its own child process, or all in this one. */
export type Topology = 'processes' | 'one-process'

async function startStack(
  topology: Topology,
  pacing: Pacing,
  bodyMaxBytes: number,
  env: Readonly<Record<string, string>>,
): Promise<ReplayStack> {
  if (topology === 'processes') return startProcessStack({ pacing, bodyMaxBytes, env })
  const stack = await startBenchStack({ pacing, bodyMaxBytes, env })
  return {
    docIds: stack.docIds,
    connect: stack.connect,
    signalSends: async () => stack.signalSends(),
    close: stack.close,
  }
}

export async function replayE2e(
  replay: Replay,
  options: {
    pacing?: Pacing
    bodyMaxBytes?: number
    capture?: E2eCapture
    topology?: Topology
    env?: Readonly<Record<string, string>>
  } = {},
): Promise<E2eRun> {
  collectGarbage()
  // Sections 1 and 4 measure the text path (bodies, batches, chunks); section 7 the attachment path.
  const stack = await startStack(
    options.topology ?? 'processes',
    options.pacing ?? PACING_OFF,
    options.bodyMaxBytes ?? 2000,
    { ...TEXT_PATH, ...options.env },
  )
  try {
    const { a, docA, docB } = await connectPair(stack, stack.docIds[0] ?? '')
    const before = await stack.signalSends()
    const capture = options.capture
    if (capture !== undefined) {
      a.wire.onSent = (frame) => {
        const envelope = decodeEnvelope(frame)
        if (envelope.kind !== 'update' && envelope.kind !== 'snapshot') return
        capture.frames.push(frame.slice())
        capture.payloadBytes += envelope.payload.byteLength
      }
    }
    const framesBefore = a.wire.sentMessages
    const ms = await timeReplay('e2e-col', docA, docB, replay)
    const atConvergence = await stack.signalSends()
    await untilSaved(a.connection)
    a.wire.onSent = undefined
    const after = await stack.signalSends()
    return {
      ms,
      signalSends: after.count - before.count,
      signalBytes: after.bytes - before.bytes,
      sendsA: after.byA - before.byA,
      bytesA: after.bytesA - before.bytesA,
      sendsAByPurpose: {
        edits: after.byAPurpose.edits - before.byAPurpose.edits,
        editBytes: after.byAPurpose.editBytes - before.byAPurpose.editBytes,
        sync: after.byAPurpose.sync - before.byAPurpose.sync,
        other: after.byAPurpose.other - before.byAPurpose.other,
        resent: after.byAPurpose.resent - before.byAPurpose.resent,
      },
      clientFrames: a.wire.sentMessages - framesBefore,
      refusedBySignal: after.refused.messages - before.refused.messages,
      sendsAAtConvergence: atConvergence.byA - before.byA,
    }
  } finally {
    await stack.close()
  }
}

export interface YwsRun {
  readonly ms: number
  /** Messages client A put on the wire (one per keystroke), and their bytes. */
  readonly messagesA: number
  readonly bytesA: number
  /** Every WebSocket message both clients sent or received. */
  readonly messagesAll: number
  readonly bytesAll: number
}

export async function replayYws(server: YwsServer, replay: Replay): Promise<YwsRun> {
  collectGarbage()
  const room = server.room()
  const docA = new Y.Doc()
  const docB = new Y.Doc()
  try {
    const a = await server.connect(room, docA)
    const b = await server.connect(room, docB)
    const base = { a: { ...a.wire }, b: { ...b.wire } }
    const ms = await timeReplay('y-websocket', docA, docB, replay)
    const all = (w: typeof a.wire, b0: typeof base.a) =>
      w.sentMessages - b0.sentMessages + (w.receivedMessages - b0.receivedMessages)
    const allBytes = (w: typeof a.wire, b0: typeof base.a) =>
      w.sentBytes - b0.sentBytes + (w.receivedBytes - b0.receivedBytes)
    return {
      ms,
      messagesA: a.wire.sentMessages - base.a.sentMessages,
      bytesA: a.wire.sentBytes - base.a.sentBytes,
      messagesAll: all(a.wire, base.a) + all(b.wire, base.b),
      bytesAll: allBytes(a.wire, base.a) + allBytes(b.wire, base.b),
    }
  } finally {
    await server.closeRoom(room)
    // A provider's awareness keeps an interval until its document is destroyed.
    docA.destroy()
    docB.destroy()
  }
}

/** Seconds `sends` take at the default pacing (a full bucket first), computed from the count. */
const pacedSeconds = (sends: number): number =>
  Math.max(0, sends - PACING_DEFAULT.burst) / PACING_DEFAULT.sendsPerSecond
const paced = (sends: number): string => `${sends} sends take ≈ ${pacedSeconds(sends).toFixed(0)} s`

export interface TraceReplayResult {
  readonly keystrokes: number
  /** `e2e`, `yws`: servers in child processes; `e2eOneProcess`, `ywsOneProcess`: all in the bench process. */
  readonly rounds: {
    local: number[]
    localListened: number[]
    e2e: E2eRun[]
    e2eOneProcess: E2eRun[]
    yws: (YwsRun | null)[]
    ywsOneProcess: (YwsRun | null)[]
  }
  readonly localMs: Stat
  readonly localListenedMs: Stat
  readonly e2eMs: Stat
  readonly e2eOneProcessMs: Stat
  readonly ywsMs: Stat
  readonly ywsOneProcessMs: Stat
  readonly e2eOverLocal: Stat
  readonly e2eOverYws: Stat
  readonly e2eOneProcessOverLocal: Stat
  readonly e2eOneProcessOverYws: Stat
  readonly longBodies: { readonly bodyMaxBytes: number; readonly run: E2eRun } | null
  /** One run in child processes with payload compression off (E2E_COL_COMPRESS=0). */
  readonly uncompressed: E2eRun
  /** Full mode: one run at the default pacing, timed, to check the times computed from the counts. */
  readonly paced: E2eRun | null
  /** Median of sidecar A's sends over the counted runs. */
  readonly sendsAMedian: number
  /** Seconds those sends would take at the default pacing (1/s, burst 5), computed from the count. */
  readonly defaultPacingSeconds: number
  readonly capture: E2eCapture
  readonly targets: Record<string, boolean>
}

export interface TraceReplayOptions {
  readonly quick: boolean
}

export async function benchTraceReplay({ quick }: TraceReplayOptions): Promise<TraceReplayResult> {
  const trace = loadTrace(REPLAY_TRACE)
  const replay = replayOf(trace, quick ? 40_000 : undefined)
  const warm = replayOf(trace, quick ? 5_000 : 20_000)
  const rounds = quick ? 1 : 3
  const ywsRounds = quick ? 1 : 2
  const server = await startYws({ inChild: true })
  const serverHere = await startYws().catch(async (error: unknown) => {
    await server.close()
    throw error
  })
  const result: TraceReplayResult['rounds'] = {
    local: [],
    localListened: [],
    e2e: [],
    e2eOneProcess: [],
    yws: [],
    ywsOneProcess: [],
  }
  const capture: E2eCapture = { frames: [], payloadBytes: 0 }
  try {
    await replayLocal(warm)
    await replayE2e(warm)
    await replayE2e(warm, { topology: 'one-process' })
    await replayYws(server, warm)
    await replayYws(serverHere, warm)
    for (let round = 0; round < rounds; round++) {
      result.local.push(await replayLocal(replay))
      result.localListened.push(await replayLocal(replay, true))
      result.e2e.push(await replayE2e(replay, round === 0 ? { capture } : {}))
      result.e2eOneProcess.push(await replayE2e(replay, { topology: 'one-process' }))
      result.yws.push(round < ywsRounds ? await replayYws(server, replay) : null)
      result.ywsOneProcess.push(round < ywsRounds ? await replayYws(serverHere, replay) : null)
    }
  } finally {
    await server.close()
    await serverHere.close()
  }
  const longBodies = quick ? null : { bodyMaxBytes: 60_000, run: await replayE2e(replay, { bodyMaxBytes: 60_000 }) }
  const uncompressed = await replayE2e(replay, { env: { E2E_COL_COMPRESS: '0' } })
  const pacedRun = quick ? null : await replayE2e(replay, { pacing: PACING_DEFAULT })
  const ratios = (f: (i: number) => number | null): Stat =>
    stat(result.local.map((_, i) => f(i)).filter((r): r is number => r !== null))
  const overLocal = (runs: E2eRun[]): Stat => ratios((i) => (runs[i]?.ms ?? 0) / (result.local[i] ?? 1))
  const overYws = (runs: E2eRun[], yws: (YwsRun | null)[]): Stat =>
    ratios((i) => {
      const y = yws[i]
      return y === null || y === undefined ? null : (runs[i]?.ms ?? 0) / y.ms
    })
  const e2eOverLocal = overLocal(result.e2e)
  const e2eOverYws = overYws(result.e2e, result.yws)
  const sendsA = stat(result.e2e.map((r) => r.sendsA)).median
  const defaultPacingSeconds = pacedSeconds(sendsA)
  return {
    keystrokes: replay.txns.length,
    rounds: result,
    localMs: stat(result.local),
    localListenedMs: stat(result.localListened),
    e2eMs: stat(result.e2e.map((r) => r.ms)),
    e2eOneProcessMs: stat(result.e2eOneProcess.map((r) => r.ms)),
    ywsMs: stat(result.yws.flatMap((r) => (r === null ? [] : [r.ms]))),
    ywsOneProcessMs: stat(result.ywsOneProcess.flatMap((r) => (r === null ? [] : [r.ms]))),
    e2eOverLocal,
    e2eOverYws,
    e2eOneProcessOverLocal: overLocal(result.e2eOneProcess),
    e2eOneProcessOverYws: overYws(result.e2eOneProcess, result.ywsOneProcess),
    longBodies,
    uncompressed,
    paced: pacedRun,
    sendsAMedian: sendsA,
    defaultPacingSeconds,
    capture,
    targets: {
      withinTwiceLocalFloor: e2eOverLocal.median <= 2,
      atMost0_3OfYws: e2eOverYws.median <= 0.3,
    },
  }
}

export function printTraceReplay(r: TraceReplayResult): void {
  const e2e = r.rounds.e2e[0]
  const one = r.rounds.e2eOneProcess[0]
  const yws = r.rounds.yws[0]
  console.log(
    `\n## 1. Trace replay, as fast as possible (${REPLAY_TRACE}, ${r.keystrokes.toLocaleString('en')} keystrokes, pacing off)`,
  )
  console.log(
    'medians of counted runs (min–max); ratios per round, then their median; clients always in the bench process;',
  )
  console.log(
    'e2e-col and y-websocket in child processes are compared with each other, and so are the one-process rows\n',
  )
  console.log('| system | time to convergence ms | messages on the wire | bytes on the wire | ratio |')
  console.log('|---|---|---|---|---|')
  console.log(`| local floor (one Y.Doc, no network) | ${range(r.localMs)} | – | – | 1 |`)
  console.log(
    `| local floor + an empty update listener (Yjs encodes each update) | ${range(r.localListenedMs)} | – | – | – |`,
  )
  console.log(
    `| e2e-col, toy and sidecars in child processes (Signal sends, both sidecars) | ${range(r.e2eMs)} | ${e2e?.signalSends ?? '–'} (A: ${e2e?.sendsA ?? '–'}) | ${(e2e?.signalBytes ?? 0).toLocaleString('en')} | ${range(r.e2eOverLocal, 2)}× local, ${range(r.e2eOverYws, 3)}× y-websocket |`,
  )
  console.log(
    `| e2e-col, all in one process | ${range(r.e2eOneProcessMs)} | ${one?.signalSends ?? '–'} (A: ${one?.sendsA ?? '–'}) | ${(one?.signalBytes ?? 0).toLocaleString('en')} | ${range(r.e2eOneProcessOverLocal, 2)}× local, ${range(r.e2eOneProcessOverYws, 3)}× y-websocket |`,
  )
  console.log(
    `| y-websocket, server in a child process (A's WebSocket messages) | ${range(r.ywsMs)} | ${yws?.messagesA.toLocaleString('en') ?? '–'} (all: ${yws?.messagesAll.toLocaleString('en') ?? '–'}) | ${(yws?.bytesA ?? 0).toLocaleString('en')} (all: ${(yws?.bytesAll ?? 0).toLocaleString('en')}) | – |`,
  )
  console.log(`| y-websocket, server in this process | ${range(r.ywsOneProcessMs)} | as above | as above | – |`)
  if (r.longBodies !== null) {
    const l = r.longBodies.run
    console.log(
      `| e2e-col, child processes, long bodies (${r.longBodies.bodyMaxBytes} B) | ${l.ms.toFixed(0)} (1 run) | ${l.signalSends} (A: ${l.sendsA}) | ${l.signalBytes.toLocaleString('en')} | – |`,
    )
  }
  const u = r.uncompressed
  console.log(
    `| e2e-col, child processes, compression off | ${u.ms.toFixed(0)} (1 run) | ${u.signalSends} (A: ${u.sendsA}) | ${u.signalBytes.toLocaleString('en')} | – |`,
  )
  if (r.paced !== null) {
    const p = r.paced
    console.log(
      `| e2e-col, child processes, default pacing (${PACING_DEFAULT.sendsPerSecond}/s, burst ${PACING_DEFAULT.burst}), Signal's pace enforced | ${p.ms.toFixed(0)} (1 run; ≈ ${(pacedSeconds(p.sendsA) * 1000).toFixed(0)} computed from its sends) | ${p.signalSends} (A: ${p.sendsA}, ${p.sendsAAtConvergence} of them before B converged; refused by Signal: ${p.refusedBySignal}) | ${p.signalBytes.toLocaleString('en')} | – |`,
    )
  }
  if (e2e !== undefined) {
    const p = e2e.sendsAByPurpose
    console.log(
      `\nsidecar A's sends in the first counted run: ${p.edits} carrying edits, ${p.sync} carrying only the replica's sync traffic, ${p.other} other, ${p.resent} resent after an ambiguous send; at pacing off Signal would have refused ${e2e.refusedBySignal} of the sends (toy counting its pace)`,
    )
  }
  console.log(
    `\nwith the default pacing (${PACING_DEFAULT.sendsPerSecond}/s, burst ${PACING_DEFAULT.burst}), computed from the counts: sidecar A's ${paced(r.sendsAMedian)} (median, compression on); compression off, ${paced(u.sendsA)}${r.longBodies === null ? '' : `; long bodies, ${paced(r.longBodies.run.sendsA)}`}`,
  )
  console.log('targets:', r.targets)
}
