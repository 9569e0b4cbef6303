/**
 * Section 10: what document history costs, against the same run without it. The automerge-paper
 * trace (259,778 keystrokes) is typed into a replica store twice, through the sidecar's own store,
 * replica and history (`@e2e-col/sidecar/internals`), once without history and once with it; a
 * spell goes quiet every 2,000 keystrokes (a version each, as in decisions/0018). Reported:
 * - the store's bytes (the update log; with history, its versions and change log too), and the
 *   database file, each with its ratio to the run without history;
 * - the extra cost per edit while typing: the first keystrokes applied one update each (a page
 *   sends about that at typing speed), time and bytes written per edit;
 * - opening the middle version (read from the store and loaded into a Y.Doc) and restoring it at
 *   the end of the trace (diff, apply, the versions before and after), with the restore's size.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createDocHistory,
  createLogger,
  DEFAULT_RETENTION,
  loadReplica,
  openSidecarStore,
  restoreChange,
  type CompactionPolicy,
  type HistoryPolicy,
} from '@e2e-col/sidecar/internals'
import { manualTimers } from '@e2e-col/sync/testing'
import * as Y from 'yjs'
import { percentile } from './stats.ts'
import { REPLAY_TRACE } from './trace-replay.ts'
import { applyPatches, loadTrace, traceExists } from './traces.ts'

const TRACE = REPLAY_TRACE
const DOC = 'history-bench'
const SELF = '+15555550101'
/** Keystrokes per spell: each spell becomes one version once quiet. */
const SPELL = 2000
/** Keystrokes applied one update each, timed (the per-edit cost). */
const SAMPLE = 4000
/** The sample in quick mode (`npm run bench -- --quick`, a smoke check). */
const QUICK_SAMPLE = 1000
/** Keystrokes per update after the sample (the store's contents do not depend on it; the run's length does). */
const BATCH = 50
/** Rounds of the per-edit sample, alternately without and with history (a busy machine's fsync varies). */
const ROUNDS = 3
/** A frame at least this long goes as one attachment (the sidecar's default E2E_COL_ATTACHMENT_MIN_BYTES). */
const ATTACHMENT_MIN_BYTES = 4096

const NO_COMPACTION: CompactionPolicy = { maxRows: Infinity, growthFactor: Infinity, slackBytes: Infinity }

const POLICY: HistoryPolicy = {
  quietMs: 3000,
  maxSpellMs: 60_000,
  absenceMs: 600_000,
  changeDays: 7,
  retention: DEFAULT_RETENTION,
}

interface Run {
  readonly keystrokes: number
  readonly updateLogBytes: number
  readonly versionBytes: number
  readonly changeBytes: number
  readonly fileBytes: number
  readonly versions: number
  readonly middle?: { readonly openMs: number; readonly restoreMs: number; readonly restoreBytes: number }
}

export interface HistoryCostResult {
  readonly trace: string
  readonly keystrokes: number
  readonly without: Run
  readonly with: Run
  /** Per edit, the median of {@link ROUNDS} rounds run alternately without and with history. */
  readonly edit: { readonly without: EditCost; readonly with: EditCost }
  readonly ratios: {
    readonly store: number
    readonly versionsOnly: number
    readonly file: number
    readonly editTimeP50: number
    readonly editBytes: number
    readonly editWritten: number | undefined
  }
  /** The restore goes as one attachment (one Signal send) when at least this long, else as text. */
  readonly restoreAsAttachment: boolean
}

/**
 * Per edit while typing: median and p95 µs of one keystroke's apply (with its synced write); the
 * bytes its rows add to the store (every table and index, SQLite's dbstat payload: the update,
 * its document id and, with history, its stamp and any change row); the bytes the process hands
 * to write() for it (the WAL's pages: what the disk is given), undefined where /proc says nothing.
 */
interface EditCost {
  readonly p50: number
  readonly p95: number
  readonly bytes: number
  readonly written: number | undefined
}

/** Bytes this process has passed to write() so far (Linux's /proc/self/io `wchar`). */
function writtenSoFar(): number | undefined {
  try {
    const line = readFileSync('/proc/self/io', 'utf8').match(/^wchar:\s*(\d+)/m)
    return line === null ? undefined : Number(line[1])
  } catch {
    return undefined
  }
}

/** A fresh store and replica, with the document's history when `history`. */
function openDocument(history: boolean, compaction?: CompactionPolicy) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-history-bench-'))
  const store = openSidecarStore(dir)
  const replica = loadReplica(store, DOC, compaction)
  const timers = manualTimers()
  // Times as a sidecar stores them (ms since 1970: six bytes in a row), not from zero.
  timers.jump(Date.parse('2026-12-02T00:00:00Z'))
  const doc = history
    ? createDocHistory(DOC, replica, POLICY, {
        table: store.history,
        timers,
        self: SELF,
        storing: (fn) => fn(),
        logger: createLogger('silent'),
      })
    : undefined
  replica.observe(doc)
  const close = (): void => {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return { store, replica, timers, history: doc, close }
}

/** The first `sample` keystrokes ({@link SAMPLE}), one update each (a page sends about that at typing speed), as one spell. */
function editCost(history: boolean, sample: number): EditCost {
  // Compaction off for the sample, in both runs: each edit's rows are counted as written.
  const { store, replica, close } = openDocument(history, NO_COMPACTION)
  try {
    const trace = loadTrace(TRACE)
    const page = new Y.Doc()
    const text = page.getText('text')
    const us: number[] = []
    let sv = Y.encodeStateVector(page)
    const stored = store.payloadBytes()
    const written = writtenSoFar()
    for (let i = 0; i < Math.min(sample, trace.txns.length); i++) {
      applyPatches(text, trace.txns[i]?.patches ?? [])
      const update = Y.encodeStateAsUpdate(page, sv)
      sv = Y.encodeStateVector(page)
      const started = performance.now()
      if (!replica.apply(update, { via: 'page' })) throw new Error('the replica refused a keystroke')
      us.push((performance.now() - started) * 1000)
    }
    const writtenNow = writtenSoFar()
    // One spell, still going: with history, its changes are the stamped rows of the update log.
    return {
      p50: percentile(us, 50),
      p95: percentile(us, 95),
      bytes: (store.payloadBytes() - stored) / us.length,
      written: written === undefined || writtenNow === undefined ? undefined : (writtenNow - written) / us.length,
    }
  } finally {
    close()
  }
}

function typeTrace(keystrokes: number, withHistory: boolean): Run {
  const { store, replica, timers, history: doc, close } = openDocument(withHistory)
  try {
    const trace = loadTrace(TRACE)
    const page = new Y.Doc()
    const text = page.getText('text')
    let sv = Y.encodeStateVector(page)
    for (let i = 0; i < keystrokes; i++) {
      applyPatches(text, trace.txns[i]?.patches ?? [])
      if ((i + 1) % BATCH === 0 || i === keystrokes - 1) {
        const update = Y.encodeStateAsUpdate(page, sv)
        sv = Y.encodeStateVector(page)
        if (!replica.apply(update, { via: 'page' })) throw new Error('the replica refused an update')
      }
      if ((i + 1) % SPELL === 0) timers.advance(POLICY.quietMs)
    }
    timers.advance(POLICY.quietMs)
    if (replica.doc.getText('text').toString() !== text.toString()) throw new Error('the replica differs from the page')
    const versions = store.history.versions(DOC, undefined, 100_000)
    const run = {
      keystrokes,
      updateLogBytes: store.logSize(DOC).bytes,
      versionBytes: store.history.storedBytes(DOC).versions,
      changeBytes: store.history.storedBytes(DOC).changes,
      fileBytes: store.fileBytes(),
      versions: versions.length,
    }
    return doc === undefined ? run : { ...run, middle: middleVersion(doc, replica, versions) }
  } finally {
    close()
  }
}

/** Opens the middle version and restores it, as the API does (a version before and after). */
function middleVersion(
  history: NonNullable<ReturnType<typeof createDocHistory>>,
  replica: ReturnType<typeof loadReplica>,
  versions: readonly { readonly id: number }[],
): NonNullable<Run['middle']> {
  const middle = versions[Math.floor(versions.length / 2)]
  if (middle === undefined) throw new Error('no versions were kept')
  const times: number[] = []
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    const state = history.state(middle.id)
    if (state === undefined) throw new Error('the middle version does not load')
    Y.applyUpdate(new Y.Doc(), state)
    times.push(performance.now() - started)
  }
  const openMs = percentile(times, 50)
  const started = performance.now()
  const state = history.state(middle.id) as Uint8Array
  history.record('before-restore')
  const update = restoreChange(replica.doc, state)
  if (!replica.apply(update, { via: 'sidecar' })) throw new Error('the restore was refused')
  history.record('restore')
  const restoreMs = performance.now() - started
  const want = new Y.Doc()
  Y.applyUpdate(want, state)
  if (replica.doc.getText('text').toString() !== want.getText('text').toString())
    throw new Error('the restored document differs from the version')
  return { openMs, restoreMs, restoreBytes: update.byteLength }
}

export async function benchHistoryCost({ quick }: { quick: boolean }): Promise<HistoryCostResult | undefined> {
  if (!traceExists(TRACE)) return undefined
  const total = loadTrace(TRACE).txns.length
  const keystrokes = quick ? Math.min(total, 10_000) : total
  const rounds = { without: [] as EditCost[], with: [] as EditCost[] }
  for (let i = 0; i < (quick ? 1 : ROUNDS); i++) {
    rounds.without.push(editCost(false, quick ? QUICK_SAMPLE : SAMPLE))
    rounds.with.push(editCost(true, quick ? QUICK_SAMPLE : SAMPLE))
  }
  const middleOf = (costs: EditCost[]): EditCost => ({
    p50: percentile(
      costs.map((c) => c.p50),
      50,
    ),
    p95: percentile(
      costs.map((c) => c.p95),
      50,
    ),
    bytes: percentile(
      costs.map((c) => c.bytes),
      50,
    ),
    written: costs.some((c) => c.written === undefined)
      ? undefined
      : percentile(
          costs.map((c) => c.written ?? 0),
          50,
        ),
  })
  const edit = { without: middleOf(rounds.without), with: middleOf(rounds.with) }
  const without = typeTrace(keystrokes, false)
  const withHistory = typeTrace(keystrokes, true)
  const storeWithout = without.updateLogBytes
  const storeWith = withHistory.updateLogBytes + withHistory.versionBytes + withHistory.changeBytes
  const restoreBytes = withHistory.middle?.restoreBytes ?? 0
  return {
    trace: TRACE,
    keystrokes,
    without,
    with: withHistory,
    edit,
    ratios: {
      store: storeWith / storeWithout,
      versionsOnly: (withHistory.updateLogBytes + withHistory.versionBytes) / storeWithout,
      file: withHistory.fileBytes / without.fileBytes,
      editTimeP50: edit.with.p50 / edit.without.p50,
      editBytes: edit.with.bytes / edit.without.bytes,
      editWritten:
        edit.with.written === undefined || edit.without.written === undefined
          ? undefined
          : edit.with.written / edit.without.written,
    },
    // The restore is one update, sent like any edit: by the sidecar's rule, one attachment when long enough.
    restoreAsAttachment: restoreBytes >= ATTACHMENT_MIN_BYTES,
  }
}

const kb = (n: number): string => `${(n / 1024).toFixed(0)} KiB`

export function printHistoryCost(r: HistoryCostResult | undefined): void {
  console.log('\n## 10. History: store, versions, restore, per-edit cost (against the same run without history)')
  if (r === undefined) return console.log(`(skipped: no ${TRACE} trace in shared/data/editing-traces)`)
  const w = r.with
  console.log(`${r.trace}, ${r.keystrokes} keystrokes, a version every ${SPELL}: ${w.versions} versions`)
  console.log(
    `store without history: ${kb(r.without.updateLogBytes)} (file ${kb(r.without.fileBytes)}); with: update log ${kb(w.updateLogBytes)} + versions ${kb(w.versionBytes)} + change log ${kb(w.changeBytes)} (file ${kb(w.fileBytes)})`,
  )
  console.log(
    `ratios: store ${r.ratios.store.toFixed(2)}× (versions alone ${r.ratios.versionsOnly.toFixed(2)}×), file ${r.ratios.file.toFixed(2)}×`,
  )
  console.log(
    `per edit (the first keystrokes, one update each): ${r.edit.without.p50.toFixed(0)} → ${r.edit.with.p50.toFixed(0)} µs p50 (${r.ratios.editTimeP50.toFixed(2)}×; p95 ${r.edit.without.p95.toFixed(0)} → ${r.edit.with.p95.toFixed(0)} µs), ${r.edit.without.bytes.toFixed(0)} → ${r.edit.with.bytes.toFixed(0)} bytes stored (${r.ratios.editBytes.toFixed(2)}×)${r.edit.without.written === undefined || r.edit.with.written === undefined ? '' : `, ${r.edit.without.written.toFixed(0)} → ${r.edit.with.written.toFixed(0)} bytes handed to write() (${(r.ratios.editWritten ?? 0).toFixed(2)}×)`}`,
  )
  if (w.middle !== undefined)
    console.log(
      `middle version: open ${w.middle.openMs.toFixed(0)} ms; restore at the end of the trace ${w.middle.restoreMs.toFixed(0)} ms, one change of ${kb(w.middle.restoreBytes)}${r.restoreAsAttachment ? ' (one attachment: one Signal send)' : ''}`,
    )
}
