/**
 * JSON-RPC errors for the next calls of one method (`listGroups` answering -1, say), set through
 * `/toy/v1/world/fail-next-calls`. The send-specific switches of `faults.ts` shape send results;
 * this one answers any method with a bare error, as the real daemon does when a command throws.
 * Kept per toy, keyed by its state; `/toy/v1/faults/reset` does not clear it (n = 0 does).
 */
import type { FaultRpcError } from './faults.ts'
import type { ToySignalState } from './state.ts'

interface Pending {
  n: number
  error: FaultRpcError
}

const byState = new WeakMap<ToySignalState, Map<string, Pending>>()

function table(state: ToySignalState): Map<string, Pending> {
  let t = byState.get(state)
  if (t === undefined) {
    t = new Map()
    byState.set(state, t)
  }
  return t
}

/** The next `n` calls of `method` answer `error` (n = 0 clears it). */
export function failNextCalls(state: ToySignalState, method: string, n: number, error: FaultRpcError): void {
  if (n === 0) table(state).delete(method)
  else table(state).set(method, { n, error })
}

/** The error for this call of `method`, consuming one, or undefined. */
export function takeCallFailure(state: ToySignalState, method: string): FaultRpcError | undefined {
  const pending = byState.get(state)?.get(method)
  if (pending === undefined) return undefined
  pending.n -= 1
  if (pending.n <= 0) byState.get(state)?.delete(method)
  return pending.error
}
