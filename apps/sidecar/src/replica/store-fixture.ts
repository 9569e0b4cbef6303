/** Test helper: a fresh folder for a replica store, removed when the test finishes. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

export function tempStoreDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `e2e-col-${label}-`))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
