/**
 * The chat run as a child of `e2e-col chat` watches its parent through a pipe: the parent holds the
 * write end and never writes; when the parent ends, however it ends (SIGKILL included), the kernel
 * closes that end and the chat reads EOF. The chat then stops as on SIGTERM: the running turn's
 * process group is killed, the session lock released. Works wherever Node runs (no prctl).
 */
import { Socket } from 'node:net'
import { ChatError } from './errors.ts'

/** The environment variable naming the pipe's file descriptor in the chat process. */
export const PARENT_PIPE_ENV = 'E2E_COL_CHAT_PARENT_FD'

/**
 * The pipe's descriptor, read once at the edge and removed from `env` so the agent never inherits
 * the name; undefined when the chat was started directly. Throws `CHAT_USAGE` for a value that is
 * no descriptor above stderr.
 */
export function takeParentPipe(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[PARENT_PIPE_ENV]
  if (raw === undefined) return undefined
  delete env[PARENT_PIPE_ENV]
  const fd = Number(raw)
  if (!/^\d{1,4}$/.test(raw) || fd < 3)
    throw new ChatError('CHAT_USAGE', `${PARENT_PIPE_ENV} must be a file descriptor number of 3 or more`)
  return fd
}

/**
 * Calls `onGone` once, when the parent's end of the pipe closes (or the pipe fails). The watch
 * never keeps the process alive by itself; `close` ends it without calling `onGone`. Throws
 * `CHAT_USAGE` when `fd` is no pipe (closed, a file).
 */
export function watchParentPipe(fd: number, onGone: () => void): { close(): void } {
  let pipe: Socket
  try {
    pipe = new Socket({ fd, readable: true, writable: false })
  } catch (err) {
    throw new ChatError('CHAT_USAGE', `${PARENT_PIPE_ENV}=${fd} names no pipe of this process`, { cause: err })
  }
  let done = false
  const gone = (): void => {
    if (done) return
    done = true
    onGone()
  }
  pipe.on('data', () => {}) // the parent writes nothing; reading is what lets EOF arrive
  pipe.once('end', gone)
  pipe.once('close', gone)
  pipe.once('error', gone)
  pipe.unref()
  return {
    close() {
      done = true
      pipe.destroy()
    },
  }
}
