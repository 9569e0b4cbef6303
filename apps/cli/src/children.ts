/**
 * The processes `up` runs, started through their own binaries (never imported): each in its own
 * process group, its output into a rotated log (a tail kept for error messages), stopped with
 * SIGTERM then SIGKILL after a grace period (`spawnInGroup`, as the daemon is run).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { spawnInGroup, type RotatingLog } from '@e2e-col/signal-cli-runtime'
import { binNodeOptions } from '../../../scripts/node-flags.ts'

export interface Child {
  readonly name: string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** The last lines it printed (for messages when it fails). */
  tail(): string
  stop(graceMs: number): Promise<void>
}

/** The path of a workspace package's bin, from its package.json. */
export function binOf(pkg: string, bin: string): string {
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`)
  const bins = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> }).bin
  const rel = typeof bins === 'string' ? bins : bins?.[bin]
  if (rel === undefined) throw new Error(`${pkg} has no bin ${bin}`)
  return join(dirname(manifest), rel)
}

/** The folder of a package (for Vite's root). */
export function packageDir(pkg: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`))
}

/** `node <the options its package asks for> <bin> <args>` (scripts/node-flags.ts). */
export function nodeArgs(script: string, args: readonly string[]): string[] {
  return [...binNodeOptions(script), script, ...args]
}

/** Runs a workspace bin with this Node in its own process group (see `spawnInGroup`). */
export function spawnChild(
  name: string,
  script: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; log?: RotatingLog; onLine?: (line: string) => void },
): Child {
  const group = spawnInGroup(process.execPath, nodeArgs(script, args), options)
  return {
    name,
    exited: group.exited.then(({ code, signal }) => ({ code, signal })),
    tail: () => group.output().trim().split('\n').slice(-3).join(' | '),
    stop: (graceMs) => group.stop(graceMs),
  }
}
