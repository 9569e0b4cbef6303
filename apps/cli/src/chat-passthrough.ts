/** `e2e-col chat …` runs the chat loop's own binary with the same arguments and terminal. */
import { spawn } from 'node:child_process'
import { binOf } from './children.ts'

export function runChatBinary(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [binOf('@e2e-col/chat', 'e2e-col-chat'), 'chat', ...args], { stdio: 'inherit' })
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
