/**
 * One sidecar per data folder: a writable store holds an exclusive lock on `sidecar.lock` in the
 * folder for as long as it is open. A second sidecar on the folder is refused with a StoreError
 * (exit 9) naming the folder and the holder; `inspect` opens the store read-only and never locks.
 *
 * Why a kernel lock, taken through SQLite, and not a pid file or proper-lockfile:
 * - The lock is an fcntl() record lock (SQLite's `locking_mode=EXCLUSIVE` on a file of its own).
 *   The kernel drops it when the holder dies, however it dies (SIGKILL, crash; a power loss drops
 *   it with the machine), so a stale lock cannot exist and nothing has to judge staleness.
 * - A pid file needs a liveness check, and pid reuse after a crash can make a dead sidecar look
 *   alive (a refused start for no reason); a pid from another host cannot be checked at all.
 * - proper-lockfile judges staleness by an mtime heartbeat: a restart right after a SIGKILL must
 *   wait out the stale window, and an event loop blocked longer than that window (a large replica
 *   loads synchronously) lets a second sidecar take the lock from a live one.
 * - SQLite's unix VFS also refuses a second lock from the same process (tests run several sidecars
 *   in one process), which plain fcntl() would not.
 * - On a network mount the lock is exactly as good as the mount's fcntl() locking, which the
 *   replica's own SQLite database relies on already; SQLite advises against such mounts.
 * The holder's pid and host go in `sidecar.pid` beside the lock, only to name it in the refusal.
 * @see docs/sidecar.md §8.1
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { z } from 'zod'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

/** The locked file inside the data folder; never deleted (a deleted lock file could be locked twice). */
export const LOCK_FILE = 'sidecar.lock'
/** Who holds the lock, for the refusal message only: the lock itself is the kernel's. */
export const HOLDER_FILE = 'sidecar.pid'

const Holder = z.object({ pid: z.number().int().positive(), host: z.string().max(255) })

/**
 * Every open lock database, until its release(). The module keeps them referenced so a caller
 * that drops the returned FolderLock cannot lose the lock: garbage collection of an unreferenced
 * better-sqlite3 handle closes it, and closing it drops the fcntl() lock silently.
 */
const HELD = new Set<Database.Database>()

export interface FolderLock {
  /** Releases the lock (idempotent). */
  release(): void
}

/** The holder named in `sidecar.pid`, or undefined when it is missing or unreadable. */
function readHolder(dir: string): z.infer<typeof Holder> | undefined {
  try {
    const parsed = Holder.safeParse(JSON.parse(readFileSync(join(dir, HOLDER_FILE), 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

function describeHolder(dir: string): string {
  const holder = readHolder(dir)
  if (holder === undefined) return 'another sidecar'
  return holder.host === hostname()
    ? `another sidecar (pid ${holder.pid})`
    : `another sidecar (pid ${holder.pid} on host ${holder.host})`
}

/**
 * Takes the data folder's lock, without waiting. It is held until `release()` or the process's
 * end, whether or not the caller keeps the returned object.
 * @throws StoreError when another sidecar holds it, or when the lock file cannot be created.
 */
export function lockDataFolder(dir: string): FolderLock {
  const path = join(dir, LOCK_FILE)
  const db = guarded(path, 'create the data folder lock', () => new Database(path, { timeout: 0 }))
  try {
    db.pragma('journal_mode = MEMORY')
    db.pragma('locking_mode = EXCLUSIVE')
    // In exclusive locking mode the lock taken by this transaction is kept until the close.
    db.exec('BEGIN EXCLUSIVE; COMMIT')
  } catch (error) {
    db.close()
    const code = (error as { code?: unknown }).code
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new StoreError(dir, `the data folder is in use by ${describeHolder(dir)}; one sidecar per data folder`, {
        cause: error,
      })
    }
    return guarded(path, 'lock the data folder', (): never => {
      throw error
    })
  }
  try {
    writeFileSync(join(dir, HOLDER_FILE), `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`, {
      mode: 0o600,
    })
  } catch (error) {
    db.close()
    return guarded(dir, `write ${HOLDER_FILE}`, (): never => {
      throw error
    })
  }
  HELD.add(db)
  let held = true
  return {
    release() {
      if (!held) return
      held = false
      // Removed while still locked, so it never names a sidecar that has let go.
      try {
        rmSync(join(dir, HOLDER_FILE), { force: true })
      } finally {
        HELD.delete(db)
        db.close()
      }
    },
  }
}
