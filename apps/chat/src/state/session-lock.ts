/**
 * One process per agent session id, across processes: a lock file created with O_EXCL holding the
 * owner's pid. A lock whose owner is gone (crash, SIGKILL) is taken over; a live owner refuses.
 * `lockSessionWhenFree` first gives a live owner of another process a bounded time to end: a chat
 * whose `e2e-col chat` was just killed is still stopping its turn when the next `--resume` starts.
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

/** How long a start waits for another process's chat of the same session to end before refusing. */
export const LOCK_HANDOVER_MS = 10_000
const LOCK_POLL_MS = 50

/**
 * Takes the lock of `sessionId`, waiting up to `waitMs` while another live process holds it (said
 * once through `log`); then throws `CHAT_LOCKED` as `lockSession` does. A holder in this process
 * refuses at once: it cannot end while this start waits.
 */
export async function lockSessionWhenFree(
  root: string,
  sessionId: string,
  options: { waitMs: number; log(line: string): void },
): Promise<SessionLock> {
  const deadline = Date.now() + options.waitMs
  let said = false
  for (;;) {
    try {
      return lockSession(root, sessionId)
    } catch (err) {
      const path = join(chatsDir(root), `${sessionId}.lock`)
      if ((err as { code?: unknown }).code !== 'CHAT_LOCKED' || heldHere.has(path) || Date.now() >= deadline) throw err
      if (!said) options.log(`${(err as Error).message}; waiting up to ${options.waitMs} ms for it to end`)
      said = true
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS))
    }
  }
}
