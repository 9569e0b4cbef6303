/** The e2e-col sections, run in order, each printed and written to bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { benchAuthorGateCost, printAuthorGateCost } from './author-gate-cost.ts'
import { benchAuthorshipCost, printAuthorshipCost } from './authorship-cost.ts'
import { benchBigPayloads, printBigPayloads } from './big-payloads.ts'
import { benchCostCurves, printCostCurves } from './cost-curves.ts'
import { benchHistoryCost, printHistoryCost } from './history-cost.ts'
import { benchMemoryScale, printMemoryScale } from './memory-scale.ts'
import { benchPhoneWakeups, printPhoneWakeups } from './phone-wakeups.ts'
import { benchPresenceCost, printPresenceCost } from './presence-cost.ts'
import { benchSingleEdit, printSingleEdit } from './single-edit.ts'
import { machine } from './stats.ts'
import { benchSuggestionCost, printSuggestionCost } from './suggestion-cost.ts'
import { benchTraceReplay, printTraceReplay } from './trace-replay.ts'
import { benchTypingSpeed, printTypingSpeed } from './typing-speed.ts'
import { benchWireEfficiency, printWireEfficiency } from './wire-efficiency.ts'

export interface SectionsResult {
  readonly traceReplay: Awaited<ReturnType<typeof benchTraceReplay>>
  readonly typingSpeed: Awaited<ReturnType<typeof benchTypingSpeed>>
  readonly singleEdit: Awaited<ReturnType<typeof benchSingleEdit>>
  readonly wireEfficiency: ReturnType<typeof benchWireEfficiency>
  readonly memoryScale: Awaited<ReturnType<typeof benchMemoryScale>>
  readonly costCurves: Awaited<ReturnType<typeof benchCostCurves>>
  readonly bigPayloads: Awaited<ReturnType<typeof benchBigPayloads>>
  readonly presenceCost: Awaited<ReturnType<typeof benchPresenceCost>>
  readonly phoneWakeups: Awaited<ReturnType<typeof benchPhoneWakeups>>
  readonly authorshipCost: Awaited<ReturnType<typeof benchAuthorshipCost>>
  readonly authorGateCost: ReturnType<typeof benchAuthorGateCost>
  readonly historyCost: Awaited<ReturnType<typeof benchHistoryCost>>
  readonly suggestionCost: Awaited<ReturnType<typeof benchSuggestionCost>>
}

// Results of a test run (vitest sets VITEST) go to an ignored folder: `npm test` writes nothing git tracks.
const RESULTS = process.env['VITEST'] === undefined ? 'results/' : '../test-artifacts/bench-results/'

/** Where results no commit keeps go (the scale section's: its figures go into docs/performance.md). */
export const IGNORED_RESULTS = '../test-artifacts/bench-results/'

export function write(name: string, quick: boolean, data: unknown, folder = RESULTS): void {
  const out = new URL(folder, import.meta.url)
  mkdirSync(out, { recursive: true })
  const file = quick ? `${name}.quick.json` : `${name}.json`
  writeFileSync(
    new URL(file, out),
    `${JSON.stringify({ mode: quick ? 'quick' : 'full', measuredAt: new Date().toISOString(), machine: machine(), ...(data as object) }, null, 2)}\n`,
  )
}

/** Runs the sections; `write: false` only checks (the test uses it). */
export async function runSections({
  quick,
  print = true,
  save = true,
}: {
  quick: boolean
  print?: boolean
  save?: boolean
}): Promise<SectionsResult> {
  const log = (f: () => void): void => {
    if (print) f()
  }
  const keep = (name: string, data: unknown): void => {
    if (save) write(name, quick, data)
  }
  /** A section's result, printed and written to bench/results/<name>.json. */
  const shown = <T>(name: string, result: T, show: (r: T) => void): T => {
    log(() => show(result))
    keep(name, result)
    return result
  }
  log(() => {
    console.log(`\n# e2e-col vs y-websocket${quick ? ' (quick mode: shorter inputs, one counted run)' : ''}`)
    console.log('machine:', machine())
  })
  const traceReplay = await benchTraceReplay({ quick })
  log(() => printTraceReplay(traceReplay))
  const { capture, ...traceReplayData } = traceReplay
  keep('trace-replay', traceReplayData)
  const firstRun = traceReplay.rounds.e2e[0]
  if (firstRun === undefined) throw new Error('no counted e2e-col replay')
  const wireEfficiency = shown('wire-efficiency', benchWireEfficiency(capture, firstRun), printWireEfficiency)
  const typingSpeed = shown('typing-speed', await benchTypingSpeed({ quick }), printTypingSpeed)
  const singleEdit = shown('single-edit', await benchSingleEdit({ quick }), printSingleEdit)
  const memoryScale = shown('memory-scale', await benchMemoryScale({ quick }), printMemoryScale)
  const costCurves = shown('cost-curves', await benchCostCurves({ quick }), printCostCurves)
  const bigPayloads = shown('big-payloads', await benchBigPayloads({ quick }), printBigPayloads)
  const presenceCost = shown('presence-cost', await benchPresenceCost({ quick }), printPresenceCost)
  const phoneWakeups = shown('phone-wakeups', await benchPhoneWakeups({ quick }), printPhoneWakeups)
  const historyCost = shown('history-cost', await benchHistoryCost({ quick }), printHistoryCost)
  const authorshipCost = shown('authorship-cost', await benchAuthorshipCost({ quick }), printAuthorshipCost)
  const authorGateCost = shown('author-gate-cost', benchAuthorGateCost({ quick }), printAuthorGateCost)
  const suggestionCost = shown('suggestion-cost', await benchSuggestionCost({ quick }), printSuggestionCost)
  log(() => console.log('\nmachine at the end:', machine()))
  return {
    traceReplay,
    typingSpeed,
    singleEdit,
    wireEfficiency,
    memoryScale,
    costCurves,
    bigPayloads,
    presenceCost,
    phoneWakeups,
    authorshipCost,
    authorGateCost,
    historyCost,
    suggestionCost,
  }
}
