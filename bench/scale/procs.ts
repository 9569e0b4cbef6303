/**
 * The processes of the scale section: the sidecar as installed (the bundle its bin runs, under
 * plain `node`, or its sources under tsx when the build fails, labelled), the baseline servers under
 * plain `node`, and the toy daemon in the bench process. Memory is read after a full collection,
 * except idle memory, also read as it settles by itself (scale/settle.mjs).
 */
import { execFileSync } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { bundleSidecar } from '../../scripts/bundle-sidecar.ts'
import { binNodeOptions } from '../../scripts/node-flags.ts'
import { BenchChild } from '../child.ts'
import { type BenchGroup, type Pacing, sidecarEnv } from '../stack.ts'

export interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
}

/** Idle RSS as a quiet process reaches it: unchanged for 10 s (`stable`), or what it was after a minute. */
export interface Settled {
  readonly rss: number
  readonly afterMs: number
  readonly stable: boolean
}

/**
 * How the sidecar runs: the bundle its bin runs (dist/bundle/, decisions/0044) under `node` with the
 * options its package asks for (as installed and as `e2e-col up` runs it); the same with V8's
 * defaults, or tsc's dist/ not bundled (each for its effect in the same run); or its sources under tsx.
 */
export type Runtime =
  | 'node (bundled bin)'
  | 'node (bundled bin), V8 defaults'
  | 'node (dist/ not bundled)'
  | 'tsx (sources)'

/** The Node options the sidecar's package asks for its bin (scripts/node-flags.ts). */
export const SIDECAR_NODE_FLAGS: readonly string[] = binNodeOptions(
  fileURLToPath(new URL('../../apps/sidecar/bin/e2e-col-sidecar.js', import.meta.url)),
)

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Builds the sidecar's dist/ and its bin's bundle as `npm run pack:packages` does; the runtime the section can use. */
export function buildSidecar(): { runtime: Runtime; buildMs: number; error?: string } {
  const started = performance.now()
  try {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
    execFileSync(process.execPath, [tsc, '-b', join(ROOT, 'apps/sidecar/tsconfig.build.json')], {
      cwd: ROOT,
      stdio: 'inherit',
    })
    statSync(join(bundleSidecar(ROOT), 'index.js'))
    return { runtime: 'node (bundled bin)', buildMs: performance.now() - started }
  } catch (error) {
    return { runtime: 'tsx (sources)', buildMs: performance.now() - started, error: String(error) }
  }
}

/** A server process with memory and CPU readings, and the time from its fork to ready. */
export class Proc {
  readonly #child: BenchChild
  readonly #forkedAt = performance.now()
  readyMs = 0

  private constructor(child: BenchChild) {
    this.#child = child
  }

  static sidecar(runtime: Runtime): Proc {
    if (runtime === 'tsx (sources)')
      return new Proc(new BenchChild('sidecar-child.ts', ['--expose-gc', ...SIDECAR_NODE_FLAGS]))
    const flags = runtime === 'node (bundled bin), V8 defaults' ? [] : SIDECAR_NODE_FLAGS
    const entry = runtime === 'node (dist/ not bundled)' ? 'dist' : 'bundle'
    return new Proc(new BenchChild('scale/sidecar-node.mjs', ['--expose-gc', ...flags], { plain: true, args: [entry] }))
  }

  static baseline(): Proc {
    return new Proc(new BenchChild('scale/baseline-server.mjs', ['--expose-gc'], { plain: true }))
  }

  static bareYdoc(): Proc {
    return new Proc(new BenchChild('scale/bare-ydoc.mjs', ['--expose-gc'], { plain: true }))
  }

  async start<T extends object>(message: object): Promise<T> {
    const answer = await this.#child.request<T>(message, 'started')
    this.readyMs = performance.now() - this.#forkedAt
    return answer
  }

  request<T>(message: object, answer: string): Promise<T> {
    return this.#child.request<T>(message, answer)
  }

  memory(gc = true): Promise<Memory> {
    return this.#child.request<Memory>({ type: 'measure', gc }, 'memory')
  }

  /** RSS once it stopped changing by itself, no collection forced (scale/settle.mjs). */
  settled(): Promise<Settled> {
    return this.#child.request<Settled>({ type: 'settle' }, 'settled')
  }

  /** User + system CPU so far, µs (the node children only). */
  async cpuMicros(): Promise<number> {
    const c = await this.#child.request<{ user: number; system: number }>({ type: 'cpu' }, 'cpu')
    return c.user + c.system
  }

  stop(): Promise<void> {
    return this.#child.stop(15_000)
  }
}

/** N documents, each mapped to its own group of `members` (accounts first). */
export function scaleGroups(count: number, members: readonly string[]): { docIds: string[]; groups: BenchGroup[] } {
  const docIds = Array.from({ length: count }, () => randomUUID())
  const groups = docIds.map((d, i) => ({
    name: `scale ${i}`,
    members: [...members],
    id: createHash('sha256').update(`scale ${d}`).digest('base64'),
  }))
  return { docIds, groups }
}

export async function startToy(
  accounts: readonly string[],
  groups: readonly BenchGroup[],
  signalPace: boolean | 'count',
): Promise<ToySignal> {
  return createToySignal({ accounts: [...accounts], groups: [...groups], signalPace })
}

/** A sidecar process for `side` on the toy at `toyUrl`; its port and its fork-to-ready time. */
export async function startSidecarProc(
  runtime: Runtime,
  side: 'a' | 'b',
  layout: { toyUrl: string; docIds: readonly string[]; groups: readonly BenchGroup[]; dataDir: string },
  pacing: Pacing,
  env: Readonly<Record<string, string>> = {},
): Promise<{ proc: Proc; url: string }> {
  const proc = Proc.sidecar(runtime)
  try {
    const { port } = await proc.start<{ port: number }>({
      type: 'start',
      env: sidecarEnv(side, { ...layout, options: { pacing, env } }),
    })
    return { proc, url: `ws://127.0.0.1:${port}` }
  } catch (error) {
    await proc.stop()
    throw error
  }
}
