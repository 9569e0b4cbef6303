/**
 * Benchmark behind the coalescer's encoding choice (`chooseEncoding`, DEFAULT_MERGE_LIMIT).
 *
 * Replays the automerge-paper editing trace (~260k keystrokes) into a Y.Doc, records a window of
 * consecutive keystroke updates (one window while typing, one late in the document) and compares,
 * for n pending updates:
 *   merge: Y.mergeUpdates(last n updates)
 *   diff:  Y.encodeStateAsUpdate(doc, stateVectorAtLastFlush)
 * Prints a table and writes packages/client/bench/results/flush-encoding.json.
 * Run: npx tsx packages/client/bench/flush-encoding.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import * as Y from 'yjs'
import { chooseEncoding, DEFAULT_MERGE_LIMIT } from '../src/coalescer.ts'

const TRACE = new URL('../../../../shared/data/editing-traces/seq-ascii_automerge-paper.json.gz', import.meta.url)
const COUNTS = [16, 64, 256, 1024, 2048, 4096]
// One window while the paper is mostly being typed, one late in a long, much-edited document.
const WINDOW_STARTS = [20_000, 200_000]

interface Trace {
  txns: { patches: [number, number, string][] }[]
}

function median(fn: () => unknown, runs: number): number {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    fn()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] ?? Number.NaN
}

interface Row {
  window: number
  pending: number
  mergeMs: number
  mergeBytes: number
  diffMs: number
  diffBytes: number
  chosen: string
}

function measureWindow(trace: Trace, windowStart: number): { rows: Row[]; documentChars: number } {
  const doc = new Y.Doc()
  const text = doc.getText('t')
  const recorded: Uint8Array[] = []
  let recording = false
  doc.on('update', (u: Uint8Array) => {
    if (recording) recorded.push(u)
  })
  const maxCount = Math.max(...COUNTS)
  const rows: Row[] = []
  let svAtStart: Uint8Array = new Uint8Array()
  trace.txns.forEach((txn, i) => {
    if (i === windowStart) {
      svAtStart = Y.encodeStateVector(doc)
      recording = true
    }
    for (const [pos, del, ins] of txn.patches) {
      if (del > 0) text.delete(pos, del)
      if (ins !== '') text.insert(pos, ins)
    }
    const n = i - windowStart + 1
    if (recording && COUNTS.includes(n)) {
      const updates = recorded.slice(0, n)
      const runs = n >= 1024 ? 3 : 9
      const merged = Y.mergeUpdates(updates)
      const diff = Y.encodeStateAsUpdate(doc, svAtStart)
      rows.push({
        window: windowStart,
        pending: n,
        mergeMs: median(() => Y.mergeUpdates(updates), runs),
        mergeBytes: merged.byteLength,
        diffMs: median(() => Y.encodeStateAsUpdate(doc, svAtStart), runs),
        diffBytes: diff.byteLength,
        // What the coalescer sends: within the limit the smaller of the two, beyond it the diff.
        chosen: chooseEncoding(n) === 'merge' && merged.byteLength <= diff.byteLength ? 'merge' : 'diff',
      })
    }
    if (n === maxCount) recording = false
  })
  return { rows, documentChars: text.length }
}

/** Runs the benchmark; returns the rows it printed. */
export function benchFlushEncoding(): Row[] {
  const trace = JSON.parse(gunzipSync(readFileSync(TRACE)).toString('utf8')) as Trace
  const windows = WINDOW_STARTS.map((start) => measureWindow(trace, start))
  const rows = windows.flatMap((w) => w.rows)
  const result = {
    trace: 'seq-ascii_automerge-paper',
    documentChars: windows[0]?.documentChars,
    mergeLimit: DEFAULT_MERGE_LIMIT,
    node: process.version,
    rows,
  }
  console.log(
    `flush encoding on ${result.trace} (${result.documentChars} chars at the end; windows at keystrokes ${WINDOW_STARTS.join(', ')})`,
  )
  console.table(rows.map((r) => ({ ...r, mergeMs: r.mergeMs.toFixed(2), diffMs: r.diffMs.toFixed(2) })))
  const out = fileURLToPath(new URL('./results/', import.meta.url))
  mkdirSync(out, { recursive: true })
  writeFileSync(`${out}flush-encoding.json`, `${JSON.stringify(result, null, 2)}\n`)
  return rows
}

if (process.argv[1] === fileURLToPath(import.meta.url)) benchFlushEncoding()
