/** Prints soak results: one line per run, then totals over all runs. */
import type { SoakResult } from './soak.ts'

export function runLine(r: SoakResult): string {
  const faults = Object.entries(r.faults)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
  return `${r.ok ? 'ok  ' : 'FAIL'} seed=${r.seed} ${r.workload} chars=${r.textLength} ${(r.durationMs / 1000).toFixed(1)}s converge-after-last-fault=${r.convergeMs}ms sends=${r.sends} retries=${r.retries} replays-acked=${r.replaysAcked} reconnects=${r.streamReconnects} dedup=${r.dedupHits} ambiguous=${r.ambiguous} rate-limited=${r.rateLimited} signal-refused=${r.signalRefused} refused-starts=${r.refusedStarts} | ${faults}`
}

export function summary(results: readonly SoakResult[]): string {
  const faults = new Map<string, number>()
  for (const r of results) for (const [k, v] of Object.entries(r.faults)) faults.set(k, (faults.get(k) ?? 0) + v)
  const sum = (f: (r: SoakResult) => number) => results.reduce((n, r) => n + f(r), 0)
  const converge = results.map((r) => r.convergeMs)
  converge.sort((a, b) => a - b)
  const failed = results.filter((r) => !r.ok)
  return [
    `soak: ${results.length} runs, ${results.length - failed.length} passed, ${failed.length} failed`,
    `faults injected: ${[...faults].map(([k, v]) => `${k}=${v}`).join(', ')}`,
    `sends=${sum((r) => r.sends)} retries=${sum((r) => r.retries)} replays-acked=${sum((r) => r.replaysAcked)} stream-reconnects=${sum((r) => r.streamReconnects)} dedup-hits=${sum((r) => r.dedupHits)} ambiguous(1011)=${sum((r) => r.ambiguous)} rate-limited=${sum((r) => r.rateLimited)} deliveries=${sum((r) => r.deliveries)}`,
    `time to converge after the last fault: median ${converge[Math.floor(converge.length / 2)] ?? 0} ms, max ${converge[converge.length - 1] ?? 0} ms`,
  ].join('\n')
}
