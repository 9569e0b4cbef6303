/** The real `e2e-col-sidecar` binary as a child process, for kills and exit codes. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { onTestFinished } from 'vitest'

export const BIN = fileURLToPath(new URL('../bin/e2e-col-sidecar.js', import.meta.url))

export interface ChildSidecar {
  child: ChildProcess
  /** Resolves with the URL from the ready line; rejects if the process exits first. */
  ready: Promise<string>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>
}

export function spawnSidecar(env: Record<string, string>, args: string[] = []): ChildSidecar {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env, E2E_COL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onTestFinished(() => void child.kill('SIGKILL'))
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  )
  const ready = new Promise<string>((resolve, reject) => {
    let buf = ''
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString()
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        const url = /"url":"([^"]+)"/.exec(line)?.[1]
        if (url !== undefined) resolve(url)
      }
    })
    void exited.then((e) => reject(new Error(`sidecar exited before ready (${e.code ?? e.signal}): ${e.stderr}`)))
  })
  ready.catch(() => {})
  return { child, ready, exited }
}

/** Runs the binary to completion (a refused start, or `inspect`). */
export async function runSidecar(
  env: Record<string, string>,
  args: string[] = [],
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    ...(cwd === undefined ? {} : { cwd }),
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onTestFinished(() => void child.kill('SIGKILL'))
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
  return { code, stdout, stderr }
}
