/**
 * Runs the fuzz targets with fast-check and counts cases (a multi-part input counts each part:
 * every SSE split, every pushed chunk sequence, every body). Any exception other than the typed
 * ones, any unhandled rejection, or heap growth beyond the bound fails the run.
 */
import fc from 'fast-check'
import { bodyDecoding, batchUnpacking, envelopeDecoding, reassembly } from './protocol-targets.ts'
import { daemonIngest, eventsStream, jsonRpcResponse, wsFrameHandler } from './sidecar-targets.ts'
import type { FuzzTarget } from './target.ts'

export const TARGETS: readonly FuzzTarget<never>[] = [
  envelopeDecoding,
  bodyDecoding,
  batchUnpacking,
  reassembly,
  eventsStream,
  daemonIngest,
  jsonRpcResponse,
  wsFrameHandler,
] as unknown as FuzzTarget<never>[]

export interface TargetReport {
  name: string
  runs: number
  cases: number
  ms: number
  heapGrowthMb: number
}

/** Heap growth allowed over one target's run: these targets keep nothing between inputs. */
export const MAX_HEAP_GROWTH_MB = 128

function heapMb(): number {
  ;(globalThis as { gc?: () => void }).gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

export async function fuzzTarget(target: FuzzTarget<never>, runs: number, seed: number): Promise<TargetReport> {
  const started = Date.now()
  const heapBefore = heapMb()
  let cases = 0
  const count = (n: void | number) => (cases += typeof n === 'number' ? n : 1)
  const rejections: unknown[] = []
  const onRejection = (reason: unknown) => rejections.push(reason)
  process.on('unhandledRejection', onRejection)
  try {
    await fc.assert(
      fc.asyncProperty(target.arbitrary, async (input) => void count(await target.check(input))),
      { numRuns: runs, seed, endOnFailure: true },
    )
    await new Promise((r) => setImmediate(r))
  } finally {
    process.off('unhandledRejection', onRejection)
  }
  if (rejections.length > 0)
    throw new Error(`${target.name}: ${rejections.length} unhandled rejections, e.g. ${String(rejections[0])}`)
  const heapGrowthMb = Math.max(0, heapMb() - heapBefore)
  if (heapGrowthMb > MAX_HEAP_GROWTH_MB) throw new Error(`${target.name}: heap grew ${heapGrowthMb.toFixed(0)} MB`)
  return { name: target.name, runs, cases, ms: Date.now() - started, heapGrowthMb }
}
