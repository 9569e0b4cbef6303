/**
 * `e2e-col docs …`, `e2e-col inspect …` and `e2e-col sidecar …`: the sidecar's own commands, run
 * through its binary with the same arguments and terminal (apps never import apps).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { constants } from 'node:os'
import { binOf, nodeArgs } from './children.ts'

const ignore = (): void => {}

/** Runs `e2e-col-sidecar ...args`; resolves with its exit code (128 + the signal's number when killed). */
export async function runSidecarBinary(args: readonly string[]): Promise<number> {
  const sidecar = spawn(process.execPath, nodeArgs(binOf('@e2e-col/sidecar', 'e2e-col-sidecar'), args), {
    stdio: 'inherit',
  })
  // Ctrl-C reaches both through the terminal and the sidecar decides; a SIGTERM sent to this
  // process alone is handed on.
  const handOn = (): void => void sidecar.kill('SIGTERM')
  process.on('SIGINT', ignore)
  process.on('SIGTERM', handOn)
  try {
    const [code, signal] = (await once(sidecar, 'exit')) as [number | null, NodeJS.Signals | null]
    return code ?? (signal === null ? 1 : 128 + constants.signals[signal])
  } finally {
    process.off('SIGINT', ignore)
    process.off('SIGTERM', handOn)
  }
}
