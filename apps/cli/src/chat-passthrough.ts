/**
 * `e2e-col chat …` runs the chat loop's own binary with the same arguments and terminal (apps never
 * import apps), tied to this process: the child gets the read end of a pipe this process never
 * writes to, and stops when it reads EOF, which the kernel delivers however this process ends,
 * SIGKILL included (docs/decisions/0016-chat-in-process.md).
 */
import { spawn } from 'node:child_process'
import { binOf } from './children.ts'

/** Must match `PARENT_PIPE_ENV` of apps/chat (`src/parent-pipe.ts`); the bin is the contract. */
const PARENT_PIPE_ENV = 'E2E_COL_CHAT_PARENT_FD'
const PARENT_PIPE_FD = 3

export function runChatBinary(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [binOf('@e2e-col/chat', 'e2e-col-chat'), 'chat', ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, [PARENT_PIPE_ENV]: String(PARENT_PIPE_FD) },
  })
  // The terminal sends Ctrl-C to both; a SIGTERM to this process is passed on.
  const forward = (): void => {
    child.kill('SIGTERM')
  }
  process.on('SIGTERM', forward)
  process.on('SIGINT', () => {})
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      process.removeListener('SIGTERM', forward)
      resolve(code ?? (signal === null ? 1 : 128 + 15))
    })
  })
}
