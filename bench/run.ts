/**
 * `npm run bench`: every benchmark in turn; each prints its table and writes bench/results/.
 * `npm run bench -- --quick`: the six e2e-col sections on shorter inputs with single counted runs
 * (a smoke check, under 2 minutes); the codec benchmarks are skipped.
 * `npm run bench -- --replay-only` (with or without --quick): section 1 alone, printed, not written.
 * `npm run bench -- --authorship-only` (with or without --quick): sections 11 and 12 alone, printed, not written.
 * `npm run bench -- --history-only` (with or without --quick): section 10 alone, printed; the full run
 *   also writes bench/results/history-cost.json.
 * `npm run bench -- --review-only` (with or without --quick): section 14 alone, printed; the full run
 *   also writes bench/results/suggestion-cost.json.
 * `npm run bench -- --scale` (with or without --quick, sizes with --scale-docs=…): the scale figures of
 *   issue #41 beside y-websocket and Hocuspocus (bench/scale/scale.ts), printed and written to
 *   test-artifacts/bench-results/scale(.quick).json (git-ignored).
 * Every section verifies convergence before it reports a time; a run that does not converge throws
 * and the bench exits non-zero.
 */
import { benchFlushEncoding } from '../packages/client/bench/flush-encoding.ts'
import { benchAuthorGateCost, printAuthorGateCost } from './author-gate-cost.ts'
import { benchAuthorshipCost, printAuthorshipCost } from './authorship-cost.ts'
import { benchHistoryCost, printHistoryCost } from './history-cost.ts'
import { benchProtocol } from './protocol.ts'
import { printScale } from './scale/print-scale.ts'
import { benchScale } from './scale/scale.ts'
import { IGNORED_RESULTS, runSections, write } from './sections.ts'
import { benchSuggestionCost, printSuggestionCost } from './suggestion-cost.ts'
import { benchTraceReplay, printTraceReplay } from './trace-replay.ts'

const quick = process.argv.includes('--quick')
const replayOnly = process.argv.includes('--replay-only')
const authorshipOnly = process.argv.includes('--authorship-only')
const historyOnly = process.argv.includes('--history-only')
const reviewOnly = process.argv.includes('--review-only')
const scale = process.argv.includes('--scale')
const started = performance.now()
try {
  if (scale) {
    const r = await benchScale(process.argv.slice(2))
    printScale(r)
    write('scale', quick, r, IGNORED_RESULTS)
  } else if (replayOnly) printTraceReplay(await benchTraceReplay({ quick }))
  else if (authorshipOnly) {
    printAuthorshipCost(await benchAuthorshipCost({ quick }))
    printAuthorGateCost(benchAuthorGateCost({ quick }))
  } else if (historyOnly) {
    const r = await benchHistoryCost({ quick })
    printHistoryCost(r)
    // A quick run is a smoke check: only the full run's figures are kept.
    if (r !== undefined && !quick) write('history-cost', quick, r)
  } else if (reviewOnly) {
    const r = await benchSuggestionCost({ quick })
    printSuggestionCost(r)
    if (!quick) write('suggestion-cost', quick, r)
  } else {
    if (!quick) {
      benchProtocol()
      benchFlushEncoding()
    }
    await runSections({ quick })
  }
  console.log(`\nbench finished in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  // Clients and servers are closed; what may linger (keep-alive sockets, library intervals) must not hold the process.
  process.exit(0)
} catch (error) {
  console.error(error)
  process.exit(1)
}
