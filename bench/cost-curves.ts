/**
 * Section 6: how time and Signal sends grow with the payload size (one update of 16 B … 1 MiB of
 * real prose, A → B: the automerge-paper's final text, repeated for 1 MiB, so payload compression
 * meets text as it is typed; deflate's 32 KiB window cannot see the repeats) and with the number of documents edited at once (1, 10, 100; one 1 KiB edit each).
 * Pacing is off, so the times are the pipe's own cost; the sends are what Signal would carry, and
 * the time they take at the default pacing is computed from the count. Each curve gets a fit.
 */
import {
  PACING_DEFAULT,
  PACING_OFF,
  connectPair,
  startBenchStack,
  untilDoc,
  untilSaved,
  type BenchPair,
  type BenchStack,
} from './stack.ts'
import { fit, range, stat, type Fit, type Stat } from './stats.ts'
import { ConvergenceError, REPLAY_TRACE, TEXT_PATH } from './trace-replay.ts'
import { loadTrace } from './traces.ts'

let prose: string | undefined
/** `bytes` characters of real text (ASCII, so characters are bytes). */
function proseOf(bytes: number): string {
  prose ??= loadTrace(REPLAY_TRACE).endContent
  return prose.repeat(Math.ceil(bytes / prose.length)).slice(0, bytes)
}

const SIZES = [
  { label: '16 B', bytes: 16 },
  { label: '1 KiB', bytes: 1024 },
  { label: '64 KiB', bytes: 64 * 1024 },
  { label: '1 MiB', bytes: 1024 * 1024 },
]
const DOCUMENT_COUNTS = [1, 10, 100]
/** The client's default flush window is 250 ms. */
const QUIET_MS = 300

/** One edit of `bytes` characters in each pair at once; ms until every B has all of it, and A's sends. */
async function editAll(stack: BenchStack, pairs: readonly BenchPair[], bytes: number): Promise<Sample> {
  // A quiet period longer than the client's flush window: each edit is sent at once, not coalesced.
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS))
  const before = stack.signalSends()
  const chunk = proseOf(bytes)
  const start = performance.now()
  const seen = pairs.map((p) => {
    const expected = p.docA.getText('text').length + bytes
    return untilDoc(p.docB, () => p.docB.getText('text').length >= expected)
  })
  for (const p of pairs) p.docA.getText('text').insert(0, chunk)
  await Promise.all(seen)
  const ms = performance.now() - start
  for (const p of pairs) {
    if (p.docB.getText('text').toString() !== p.docA.getText('text').toString())
      throw new ConvergenceError('cost curve: B differs from A')
  }
  await Promise.all(pairs.map((p) => untilSaved(p.a.connection)))
  const after = stack.signalSends()
  return { ms, sends: after.byA - before.byA, editSends: after.byAPurpose.edits - before.byAPurpose.edits }
}

/** One measurement: all of A's sends, and those that carried the edit (a loaded machine adds sync traffic). */
interface Sample {
  readonly ms: number
  readonly sends: number
  readonly editSends: number
}

export interface CurvePoint {
  readonly x: number
  readonly label: string
  readonly ms: Stat
  readonly sends: number
  /** The sends that carried the edits (gap repair and health sent meanwhile are not counted). */
  readonly editSends: number
  readonly defaultPacingSeconds: number
}

export interface CostCurvesResult {
  readonly sizes: CurvePoint[]
  readonly documents: CurvePoint[]
  readonly fits: {
    readonly sizeTime: Fit
    readonly sizeSends: Fit
    readonly documentsTime: Fit
    readonly documentsSends: Fit
  }
}

const pacedSeconds = (sends: number): number =>
  Math.max(0, sends - PACING_DEFAULT.burst) / PACING_DEFAULT.sendsPerSecond

export async function benchCostCurves({ quick }: { quick: boolean }): Promise<CostCurvesResult> {
  const runs = quick ? 1 : 3
  // The text path (no attachments), so the sends show how chunking grows; section 7 measures the
  // attachment path, which carries any of these payloads in one send.
  const stack = await startBenchStack({ pacing: PACING_OFF, documents: Math.max(...DOCUMENT_COUNTS), env: TEXT_PATH })
  try {
    const pairs: BenchPair[] = []
    for (const docId of stack.docIds) pairs.push(await connectPair(stack, docId))
    const first = pairs.slice(0, 1)
    await editAll(stack, first, 1024) // warm-up
    const sizes: CurvePoint[] = []
    for (const size of SIZES) {
      const samples: Sample[] = []
      for (let i = 0; i < runs; i++) samples.push(await editAll(stack, first, size.bytes))
      const sends = stat(samples.map((s) => s.sends)).median
      sizes.push({
        x: size.bytes,
        label: size.label,
        ms: stat(samples.map((s) => s.ms)),
        sends,
        editSends: stat(samples.map((s) => s.editSends)).median,
        defaultPacingSeconds: pacedSeconds(sends),
      })
    }
    await editAll(stack, pairs, 16) // warm-up of every document
    const documents: CurvePoint[] = []
    for (const n of DOCUMENT_COUNTS) {
      const samples: Sample[] = []
      for (let i = 0; i < runs; i++) samples.push(await editAll(stack, pairs.slice(0, n), 1024))
      const sends = stat(samples.map((s) => s.sends)).median
      // Pacing is per document: n documents each get their own bucket.
      documents.push({
        x: n,
        label: `${n}`,
        ms: stat(samples.map((s) => s.ms)),
        sends,
        editSends: stat(samples.map((s) => s.editSends)).median,
        defaultPacingSeconds: pacedSeconds(sends / n),
      })
    }
    const fitOf = (c: CurvePoint[], y: (p: CurvePoint) => number) =>
      fit(
        c.map((p) => p.x),
        c.map(y),
      )
    return {
      sizes,
      documents,
      fits: {
        sizeTime: fitOf(sizes, (p) => p.ms.median),
        sizeSends: fitOf(sizes, (p) => p.sends),
        documentsTime: fitOf(documents, (p) => p.ms.median),
        documentsSends: fitOf(documents, (p) => p.sends),
      },
    }
  } finally {
    await stack.close()
  }
}

function describe(f: Fit, unit: string): string {
  const best = f.model === 'n log n' ? f.nLogN : f.linear
  const term = f.model === 'n log n' ? 'n·log2 n' : 'n'
  return `${f.model} (log–log slope ${f.slopeLogLog.toFixed(2)}; ${unit} ≈ ${best.a.toPrecision(3)}·${term} + ${best.b.toPrecision(3)}, R² ${best.r2.toFixed(3)})`
}

export function printCostCurves(r: CostCurvesResult): void {
  console.log(
    '\n## 6. Cost curves (pacing off; sends by sidecar A; time at the default pacing computed from the sends)\n',
  )
  console.log('| payload | ms to B | Signal sends | at 1/s burst 5 |')
  console.log('|---|---|---|---|')
  for (const p of r.sizes)
    console.log(`| ${p.label} | ${range(p.ms, 1)} | ${p.sends} | ${p.defaultPacingSeconds.toFixed(0)} s |`)
  console.log(
    `\ntime vs size: ${describe(r.fits.sizeTime, 'ms')}\nsends vs size: ${describe(r.fits.sizeSends, 'sends')}\n`,
  )
  console.log(
    '| documents edited at once (1 KiB each) | ms until all converge | Signal sends | at 1/s burst 5, per document |',
  )
  console.log('|---|---|---|---|')
  for (const p of r.documents)
    console.log(`| ${p.label} | ${range(p.ms, 1)} | ${p.sends} | ${p.defaultPacingSeconds.toFixed(0)} s |`)
  console.log(
    `\ntime vs documents: ${describe(r.fits.documentsTime, 'ms')}\nsends vs documents: ${describe(r.fits.documentsSends, 'sends')}`,
  )
}
