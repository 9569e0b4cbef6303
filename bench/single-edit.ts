/**
 * Section 3: one keystroke A → B on an idle system, many samples, e2e-col and y-websocket.
 * Each e2e-col sample is the first edit after a quiet period longer than the client's flush window
 * (20 ms here, so 500 samples take seconds, not minutes): the coalescer sends it at once. Pacing is
 * configured out of the way, which is what "the pacing budget is available" means at the default
 * setting too (a full bucket sends at once).
 */
import * as Y from 'yjs'
import { PACING_OFF, startBenchStack, untilDoc, untilSaved } from './stack.ts'
import { ms, percentiles, type Percentiles } from './stats.ts'
import { ConvergenceError } from './trace-replay.ts'
import { startYws } from './y-websocket-baseline.ts'

const FLUSH_WINDOW_MS = 20
const sleep = (t: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, t))

async function sample(docA: Y.Doc, docB: Y.Doc, samples: number, quietMs: number): Promise<number[]> {
  const a = docA.getText('text')
  const b = docB.getText('text')
  const latencies: number[] = []
  for (let i = 0; i < samples; i++) {
    await sleep(quietMs)
    const expected = a.length + 1
    const start = performance.now()
    const seen = untilDoc(docB, () => b.length >= expected)
    a.insert(a.length, String.fromCharCode(97 + (i % 26)))
    await seen
    latencies.push(performance.now() - start)
  }
  if (b.toString() !== a.toString()) throw new ConvergenceError('single edit: B differs from A')
  return latencies
}

export interface SingleEditResult {
  readonly samples: number
  readonly e2e: Percentiles
  readonly yws: Percentiles
  readonly targets: Record<string, boolean>
}

export async function benchSingleEdit({ quick }: { quick: boolean }): Promise<SingleEditResult> {
  const samples = quick ? 50 : 500
  const warmup = 20
  const stack = await startBenchStack({ pacing: PACING_OFF })
  let e2e: number[]
  try {
    const docId = stack.docIds[0] ?? ''
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const a = await stack.connect('a', docId, docA, { flushWindowMs: FLUSH_WINDOW_MS })
    await stack.connect('b', docId, docB, { flushWindowMs: FLUSH_WINDOW_MS })
    await untilSaved(a.connection)
    await sample(docA, docB, warmup, FLUSH_WINDOW_MS + 5)
    e2e = await sample(docA, docB, samples, FLUSH_WINDOW_MS + 5)
  } finally {
    await stack.close()
  }
  const server = await startYws()
  const room = server.room()
  const docA = new Y.Doc()
  const docB = new Y.Doc()
  let yws: number[]
  try {
    await server.connect(room, docA)
    await server.connect(room, docB)
    await sample(docA, docB, warmup, FLUSH_WINDOW_MS + 5)
    yws = await sample(docA, docB, samples, FLUSH_WINDOW_MS + 5)
  } finally {
    await server.close()
    docA.destroy()
    docB.destroy()
  }
  const e = percentiles(e2e)
  return { samples, e2e: e, yws: percentiles(yws), targets: { p50Under20ms: e.p50 < 20, p99Under50ms: e.p99 < 50 } }
}

export function printSingleEdit(r: SingleEditResult): void {
  console.log(`\n## 3. Single edit latency, idle system (${r.samples} samples after 20 warm-up, A → B)\n`)
  console.log('| system | p50 ms | p95 ms | p99 ms | max ms | p50 ratio |')
  console.log('|---|---|---|---|---|---|')
  console.log(
    `| e2e-col | ${ms(r.e2e.p50, 2)} | ${ms(r.e2e.p95, 2)} | ${ms(r.e2e.p99, 2)} | ${ms(r.e2e.max, 1)} | ${(r.e2e.p50 / r.yws.p50).toFixed(1)}× y-websocket |`,
  )
  console.log(
    `| y-websocket | ${ms(r.yws.p50, 2)} | ${ms(r.yws.p95, 2)} | ${ms(r.yws.p99, 2)} | ${ms(r.yws.max, 1)} | 1 |`,
  )
  console.log('targets:', r.targets)
}
