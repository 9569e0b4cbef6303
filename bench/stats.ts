/** Summary statistics, curve fits and the machine description printed with every result. */
import { cpus, freemem, loadavg, totalmem } from 'node:os'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** Median with the extremes of a set of counted runs. */
export interface Stat {
  readonly median: number
  readonly min: number
  readonly max: number
  readonly runs: number
}

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b)
}

export function stat(values: readonly number[]): Stat {
  const s = sorted(values)
  const mid = s.length >> 1
  const median = s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
  return { median, min: s[0] ?? 0, max: s.at(-1) ?? 0, runs: s.length }
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  const s = sorted(values)
  if (s.length === 0) return Number.NaN
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))
  return s[rank] ?? Number.NaN
}

export interface Percentiles {
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
  readonly samples: number
}

export function percentiles(values: readonly number[]): Percentiles {
  return {
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: percentile(values, 100),
    samples: values.length,
  }
}

/**
 * Which of y = a·x + b and y = a·x·log2(x) + b explains the points better (least squares R²), plus
 * the log–log slope (1 ≈ proportional; near 0 when a fixed cost dominates the measured range).
 */
export interface Fit {
  readonly model: 'linear' | 'n log n'
  readonly slopeLogLog: number
  readonly linear: { readonly a: number; readonly b: number; readonly r2: number }
  readonly nLogN: { readonly a: number; readonly b: number; readonly r2: number }
}

function leastSquares(xs: readonly number[], ys: readonly number[]): { a: number; b: number; r2: number } {
  const n = xs.length
  const mx = xs.reduce((s, x) => s + x, 0) / n
  const my = ys.reduce((s, y) => s + y, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx
    const dy = (ys[i] ?? 0) - my
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  const a = sxx === 0 ? 0 : sxy / sxx
  const b = my - a * mx
  return { a, b, r2: syy === 0 || sxx === 0 ? 1 : (sxy * sxy) / (sxx * syy) }
}

export function fit(xs: readonly number[], ys: readonly number[]): Fit {
  const linear = leastSquares(xs, ys)
  const nLogN = leastSquares(
    xs.map((x) => x * Math.log2(Math.max(x, 2))),
    ys,
  )
  const logs = leastSquares(
    xs.map((x) => Math.log(x)),
    ys.map((y) => Math.log(Math.max(y, 1e-9))),
  )
  const slopeLogLog = logs.a
  const model = nLogN.r2 > linear.r2 + 0.001 ? 'n log n' : 'linear'
  return { model, slopeLogLog, linear, nLogN }
}

/** The machine the figures come from. */
export function machine(): Record<string, string | number> {
  const cpu = cpus()
  return {
    cores: cpu.length,
    cpu: cpu[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverage: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  }
}

setFlagsFromString('--expose-gc')
/** A full collection, so one measurement's garbage is not charged to the next. */
export const collectGarbage = runInNewContext('gc') as () => void

export const ms = (n: number | undefined, digits = 0): string =>
  n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits)
export const range = (s: Stat | undefined, digits = 0): string =>
  s === undefined ? '–' : `${ms(s.median, digits)} (${ms(s.min, digits)}–${ms(s.max, digits)})`
export const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1)
