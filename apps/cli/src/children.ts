/**
 * The processes `up` runs, started through their own binaries (never imported): each in its own
 * process group, its output into a rotated log (a tail kept for error messages), stopped with
 * SIGTERM then SIGKILL after a grace period.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { RotatingLog } from '@e2e-col/signal-cli-runtime'

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

export function spawnChild(
  name: string,
  script: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; log?: RotatingLog; onLine?: (line: string) => void },
): Child {
  const child = spawn(process.execPath, [script, ...args], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let tail = ''
  let partial = ''
  const take = (chunk: Buffer): void => {
    const text = chunk.toString()
    options.log?.write(text)
    tail = (tail + text).slice(-4000)
    partial += text
    for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
      options.onLine?.(partial.slice(0, nl))
      partial = partial.slice(nl + 1)
    }
  }
  child.stdout.on('data', take)
  child.stderr.on('data', take)
  const pid = child.pid
  const kill = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return
    try {
      process.kill(-pid, signal)
    } catch {
      // gone
    }
  }
  const onExit = (): void => kill('SIGKILL')
  process.once('exit', onExit)
  let gone = false
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (error) => {
      tail += `\n${error.message}`
      gone = true
      resolve({ code: null, signal: null })
    })
    child.once('exit', (code, signal) => {
      gone = true
      process.removeListener('exit', onExit)
      resolve({ code, signal })
    })
  })
  return {
    name,
    exited,
    tail: () => tail.trim().split('\n').slice(-3).join(' | '),
    async stop(graceMs) {
      if (gone) return
      kill('SIGTERM')
      const force = setTimeout(() => kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(force)
      kill('SIGKILL')
    },
  }
}
