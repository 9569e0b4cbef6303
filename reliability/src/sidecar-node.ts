/**
 * One sidecar of the soak that can be stopped and started again on the same data folder and port:
 * in-process (`startSidecar`, graceful close) or as the real binary (killed with SIGKILL).
 * Metrics are scraped while it runs and summed over its lives.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'

export const SIDECAR_BIN = fileURLToPath(new URL('../../apps/sidecar/bin/e2e-col-sidecar.js', import.meta.url))

export type SidecarMode = 'in-process' | 'child'

/** Counters summed over the sidecar's lives (Prometheus sample name → value). */
export type Metrics = Map<string, number>

export class SidecarNode {
  readonly #env: Record<string, string>
  readonly #mode: SidecarMode
  #running: RunningSidecar | undefined
  #child: ChildProcess | undefined
  #url = ''
  #port = 0
  /** Totals of finished lives plus the latest scrape of the current one. */
  readonly #done: Metrics = new Map()
  #current: Metrics = new Map()
  lives = 0

  constructor(env: Record<string, string>, mode: SidecarMode) {
    this.#env = env
    this.#mode = mode
  }

  get url(): string {
    return this.#url
  }

  /** Refused starts (a fault hit a start-up probe) retried, as a process supervisor would. */
  refusedStarts = 0

  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#startOnce()
      } catch (error) {
        if (attempt >= 30) throw error
        this.refusedStarts += 1
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }

  async #startOnce(): Promise<void> {
    const env = { ...this.#env, E2E_COL_LISTEN: `127.0.0.1:${this.#port}` }
    if (this.#mode === 'in-process') {
      this.#running = await startSidecar(loadConfig(env))
      this.#url = this.#running.url
      this.#port = this.#running.port
    } else {
      this.#url = await this.#spawn(env)
      this.#port = Number(new URL(this.#url).port)
    }
    this.lives += 1
  }

  /** In-process: graceful close. Child: SIGKILL, nothing flushed. */
  async stop(): Promise<void> {
    await this.scrape().catch(() => {})
    this.#fold()
    if (this.#running !== undefined) {
      await this.#running.close()
      this.#running = undefined
    }
    const child = this.#child
    if (child !== undefined) {
      this.#child = undefined
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      child.kill('SIGKILL')
      await exited
    }
  }

  /** Reads the current life's counters. */
  async scrape(): Promise<void> {
    if (this.#url === '' || (this.#running === undefined && this.#child === undefined)) return
    const text = await (await fetch(`${this.#url}/metrics`)).text()
    const m: Metrics = new Map()
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || line === '') continue
      const space = line.lastIndexOf(' ')
      const value = Number(line.slice(space + 1))
      if (Number.isFinite(value)) m.set(line.slice(0, space), value)
    }
    this.#current = m
  }

  metrics(): Metrics {
    const sum = new Map(this.#done)
    for (const [k, v] of this.#current) sum.set(k, (sum.get(k) ?? 0) + v)
    return sum
  }

  #fold(): void {
    for (const [k, v] of this.#current) this.#done.set(k, (this.#done.get(k) ?? 0) + v)
    this.#current = new Map()
  }

  #spawn(env: Record<string, string>): Promise<string> {
    const child = spawn(process.execPath, [SIDECAR_BIN], {
      env: { PATH: process.env['PATH'] ?? '', ...env, E2E_COL_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.#child = child
    // Never leave a sidecar behind when the runner itself is stopped.
    const reap = () => child.kill('SIGKILL')
    process.once('exit', reap)
    child.once('exit', () => process.off('exit', reap))
    let stderr = ''
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()).slice(-4000))
    return new Promise((resolve, reject) => {
      let buf = ''
      child.stdout?.on('data', (d: Buffer) => {
        buf += d.toString()
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const url = /"url":"([^"]+)"/.exec(buf.slice(0, nl))?.[1]
          buf = buf.slice(nl + 1)
          if (url !== undefined) resolve(url)
        }
      })
      child.once('exit', (code, signal) =>
        reject(new Error(`sidecar exited before ready (${code ?? signal}): ${stderr}`)),
      )
    })
  }
}

/** Sums the samples whose name starts with `prefix` (all label sets). */
export function total(m: Metrics, prefix: string): number {
  let n = 0
  for (const [k, v] of m) if (k === prefix || k.startsWith(`${prefix}{`)) n += v
  return n
}
