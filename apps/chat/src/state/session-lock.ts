/**
 * One process per agent session id, across processes: a lock file created with O_EXCL holding the
 * owner's pid. A lock whose owner is gone (crash, SIGKILL) is taken over; a live owner refuses.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { ChatError } from '../errors.ts'
import { chatsDir } from './chat-state.ts'

/** A held lock; `release` is idempotent. */
export interface SessionLock {
  readonly path: string
  release(): void
}

/** Sessions held by this process (the file alone cannot tell two holders in one process apart). */
const heldHere = new Set<string>()

function ownerAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0) // a probe: signal 0 delivers nothing
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the lock of `sessionId`; throws `CHAT_LOCKED` when another live process holds it. */
export function lockSession(root: string, sessionId: string): SessionLock {
  const path = join(chatsDir(root), `${sessionId}.lock`)
  if (heldHere.has(path))
    throw new ChatError('CHAT_LOCKED', 'another e2e-col chat in this process is running this agent session')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, `${process.pid}\n`)
      closeSync(fd)
      let held = true
      heldHere.add(path)
      return {
        path,
        release() {
          if (!held) return
          held = false
          heldHere.delete(path)
          try {
            if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true })
          } catch {
            // already gone
          }
        },
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new ChatError('CHAT_STATE', 'cannot create the session lock', { cause: err })
      let owner = Number.NaN
      try {
        owner = Number(readFileSync(path, 'utf8').trim())
      } catch {
        // vanished between open and read: retry
      }
      if (ownerAlive(owner) && owner !== process.pid) {
        throw new ChatError('CHAT_LOCKED', `another e2e-col chat (pid ${owner}) is running this agent session`)
      }
      rmSync(path, { force: true })
    }
  }
  throw new ChatError('CHAT_LOCKED', 'could not take the session lock')
}
