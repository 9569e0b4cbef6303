/**
 * Runs the toy as a real process (`toy-signal --http 127.0.0.1:0 …`), the way a developer does,
 * and reads its URL from the first line it prints.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** A running toy process. */
export interface ToyProcess {
  url: string
  stdout: () => string
  stop(): Promise<void>
}

const BIN = join(
  dirname(createRequire(import.meta.url).resolve('@e2e-col/toy-signal/package.json')),
  'bin',
  'toy-signal.js',
)

/** Starts `toy-signal --http 127.0.0.1:0 ...args` and resolves once it printed its URL (bounded wait). */
export function spawnToyProcess(args: readonly string[], timeoutMs = 20_000): Promise<ToyProcess> {
  const child = spawn(process.execPath, [BIN, '--http', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000)
  })
  const stop = (): Promise<void> => stopChild(child)
  process.once('exit', () => child.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`toy-signal printed no URL within ${timeoutMs} ms; stderr: ${err}`))
    }, timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`toy-signal exited with ${code}; stderr: ${err}`))
    })
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /toy-signal listening on (http:\/\/\S+)/.exec(out)
      if (match?.[1] === undefined) return
      clearTimeout(timer)
      resolve({ url: match[1], stdout: () => out, stop })
    })
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
