/**
 * Console inputs waiting for the loop: pushed as they arrive, read by one async iterator that ends
 * when its signal aborts or the queue is closed.
 */
import type { ConsoleInput } from './console-port.ts'

export interface InputQueue {
  push(input: ConsoleInput): void
  close(): void
  read(signal: AbortSignal): AsyncGenerator<ConsoleInput>
}

export function createInputQueue(): InputQueue {
  const waiting: ConsoleInput[] = []
  let notify: (() => void) | undefined
  const state = { closed: false }
  return {
    push(input) {
      waiting.push(input)
      notify?.()
    },
    close() {
      state.closed = true
      notify?.()
    },
    async *read(signal) {
      while (!signal.aborted && !state.closed) {
        const next = waiting.shift()
        if (next !== undefined) {
          yield next
          continue
        }
        await new Promise<void>((resolve) => {
          notify = resolve
          signal.addEventListener('abort', () => resolve(), { once: true })
        })
        notify = undefined
      }
    },
  }
}
