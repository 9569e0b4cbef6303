/**
 * What a start-up has opened so far, as a stack: each part pushes how to close it right after it
 * opened, and `unwind` closes everything in reverse order, on a failed start and on shutdown alike.
 * A closer that throws does not keep the ones below it from running; the first error is rethrown.
 */
export type Closer = () => void | Promise<void>

export interface CloserStack {
  push(closer: Closer): void
  /** Runs every closer, last pushed first, once; later calls wait for the same run. */
  unwind(): Promise<void>
}

export function createCloserStack(): CloserStack {
  const stack: Closer[] = []
  let unwinding: Promise<void> | undefined
  async function run(): Promise<void> {
    let failure: { error: unknown } | undefined
    for (let closer = stack.pop(); closer !== undefined; closer = stack.pop()) {
      try {
        await closer()
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure !== undefined) throw failure.error
  }
  return {
    push: (closer) => void stack.push(closer),
    unwind: () => (unwinding ??= run()),
  }
}
