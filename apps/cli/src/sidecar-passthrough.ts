/**
 * `e2e-col docs …`, `e2e-col inspect …` and `e2e-col sidecar …`: the sidecar's own commands, run
 * through its binary with the same arguments and terminal (apps never import apps).
 */
import { spawn } from 'node:child_process'
import { binOf } from './children.ts'

/** Runs `e2e-col-sidecar ...args`; resolves with its exit code (128 + 15 when it was terminated). */
export function runSidecarBinary(args: readonly string[]): Promise<number> {
  const sidecar = spawn(process.execPath, [binOf('@e2e-col/sidecar', 'e2e-col-sidecar'), ...args], {
    stdio: 'inherit',
  })
  // Ctrl-C reaches both through the terminal; a SIGTERM sent to this process alone is handed on.
  const handOn = (): void => void sidecar.kill('SIGTERM')
  process.on('SIGTERM', handOn)
  process.on('SIGINT', () => {})
  return new Promise((resolve) => {
    sidecar.once('exit', (code, signal) => {
      process.removeListener('SIGTERM', handOn)
      resolve(code ?? (signal === null ? 1 : 128 + 15))
    })
  })
}
