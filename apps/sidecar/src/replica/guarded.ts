/** Turns better-sqlite3 errors into {@link StoreError}s that name the store and the action. */
import { StoreError, type SidecarErrorCode } from '../errors.ts'

const STORE_FAILED: SidecarErrorCode = 'SIDECAR_STORE_FAILED'

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
    // Already ours (a nested guarded step): passed on as it is.
    if ((error as { code?: unknown } | null)?.code === STORE_FAILED) throw error
    throw new StoreError(path, `cannot ${action} (${reason(error)})`, { cause: error })
  }
}
