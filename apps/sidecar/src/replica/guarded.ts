/** Turns better-sqlite3 errors into {@link StoreError}s that name the store and the action. */
import { StoreError } from '../errors.ts'

function reason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown }
  const code = typeof e.code === 'string' ? e.code : 'error'
  return typeof e.message === 'string' ? `${code}: ${e.message}` : code
}

/** Runs `fn`, turning any driver error into a StoreError naming the path and the action. */
export function guarded<T>(path: string, action: string, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof StoreError) throw error
    throw new StoreError(path, `cannot ${action} (${reason(error)})`, { cause: error })
  }
}
