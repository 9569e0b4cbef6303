/**
 * A bench module run in its own Node process (tsx loads the TypeScript), driven over IPC: every
 * request gets one typed answer or `failed`. The children exit when the IPC channel closes, so a
 * bench that dies does not leave them running.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export class BenchChild {
  readonly #process: ChildProcess
  readonly #name: string
  #exited = false

  /**
   * `module`: a file next to this one, e.g. 'sidecar-child.ts'. `plain`: a JavaScript module run
   * under plain `node`, the workspace packages resolved to their built dist/ (bench/scale/).
   */
  constructor(
    module: string,
    execArgv: readonly string[] = [],
    { plain = false, args = [] }: { plain?: boolean; args?: readonly string[] } = {},
  ) {
    this.#name = module
    this.#process = fork(fileURLToPath(new URL(module, import.meta.url)), [...args], {
      // The workspace packages resolve to their sources (docs/packages.md), unless run as built.
      execArgv: plain ? [...execArgv] : ['--conditions=@e2e-col/source', '--import', 'tsx', ...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.#process.once('exit', () => {
      this.#exited = true
    })
  }

  request<T>(message: object, answer: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.#process.off('message', onMessage)
        this.#process.off('exit', onExit)
      }
      const onMessage = (raw: unknown): void => {
        const m = raw as { type: string; message?: string }
        if (m.type === 'failed') reject(new Error(`${this.#name}: ${m.message ?? ''}`))
        else if (m.type === answer) resolve(m as T)
        else return
        done()
      }
      const onExit = (code: number | null): void => {
        done()
        reject(new Error(`${this.#name} exited (${code ?? 'signal'}) before answering ${answer}`))
      }
      if (this.#exited) return onExit(this.#process.exitCode)
      this.#process.on('message', onMessage)
      this.#process.once('exit', onExit)
      this.#process.send(message)
    })
  }

  /** Asks the child to stop cleanly; kills it if it has not exited within `graceMs`. */
  stop(graceMs = 5000): Promise<void> {
    if (this.#exited) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#process.kill('SIGKILL'), graceMs)
      this.#process.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
      if (this.#process.connected) this.#process.send({ type: 'stop' })
      else this.#process.kill('SIGTERM')
    })
  }
}
