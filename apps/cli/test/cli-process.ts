/** The real `e2e-col` binary as a child process, for the CLI's tests. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { onTestFinished } from 'vitest'

export const BIN = fileURLToPath(new URL('../bin/e2e-col.js', import.meta.url))

export interface CliRun {
  readonly child: ChildProcess
  /** stdout and stderr so far, interleaved. */
  output(): string
  readonly exited: Promise<number | null>
  /** Resolves with the first match of `pattern` in the output (rejects if the process exits first). */
  waitFor(pattern: RegExp, what: string, timeoutMs?: number): Promise<RegExpExecArray>
}

/** Starts `e2e-col ...args`; it is killed when the test ends, whatever happens. */
export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      await exited
      clearTimeout(timer)
    }
  })
  return {
    child,
    output: () => out,
    exited,
    async waitFor(pattern, what, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const match = pattern.exec(out)
        if (match !== null) return match
        if (child.exitCode !== null)
          throw new Error(`e2e-col exited (${child.exitCode}) before ${what}; output:\n${out}`)
        if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; output:\n${out}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
  }
}

/** Polls `check` until it returns a value (not undefined), or fails naming `what`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
