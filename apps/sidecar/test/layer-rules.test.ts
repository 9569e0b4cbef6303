/**
 * The sidecar's layer rules (.dependency-cruiser.cjs, docs/architecture.md "The sidecar's layers")
 * refuse what they are for: dependency-cruiser, run with the repository's own configuration over a
 * small tree laid out like the sidecar's, reports an import from a lower layer into a higher one
 * and a cycle made only of `import type`, and lets a downward import through.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const CRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')

interface Violation {
  readonly rule: { readonly name: string }
  readonly from: string
  readonly to: string
}

const tree = mkdtempSync(join(tmpdir(), 'e2e-col-layers-'))
afterAll(() => rmSync(tree, { recursive: true, force: true }))

function write(path: string, text: string): void {
  mkdirSync(dirname(join(tree, path)), { recursive: true })
  writeFileSync(join(tree, path), text)
}

async function cruise(): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CRUISE, '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json', 'apps'],
    { cwd: tree, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations
}

let cruised: Promise<Violation[]> | undefined
const violations = (): Promise<Violation[]> => (cruised ??= cruise())

describe('the sidecar layer rules', () => {
  write('tsconfig.json', JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } }))
  // Upward: the ops endpoints (base) reaching into the library (documents).
  write('apps/sidecar/src/library/api.ts', 'export const answer = 1\n')
  write('apps/sidecar/src/ops/health.ts', "import { answer } from '../library/api.ts'\nexport const probe = answer\n")
  // A cycle through types alone: nothing of it exists at run time, and it is still refused.
  write(
    'apps/sidecar/src/send/queue.ts',
    "import type { Part } from './part.ts'\nexport interface Queue { part?: Part }\n",
  )
  write(
    'apps/sidecar/src/send/part.ts',
    "import type { Queue } from './queue.ts'\nexport interface Part { queue?: Queue }\n",
  )
  // Downward, which the rules allow: the library reading the ops endpoints.
  write('apps/sidecar/src/library/views.ts', "import { probe } from '../ops/health.ts'\nexport const view = probe\n")

  it('reports an import from a lower layer into a higher one, by the lower layer rule', async () => {
    const found = await violations()
    expect(found).toContainEqual(
      expect.objectContaining({
        rule: expect.objectContaining({ name: 'layer-base' }),
        from: 'apps/sidecar/src/ops/health.ts',
        to: 'apps/sidecar/src/library/api.ts',
      }),
    )
  }, 60_000)

  it('reports a cycle made only of type imports', async () => {
    const cycles = (await violations()).filter((v) => v.rule.name === 'no-circular')
    const pair = ['apps/sidecar/src/send/part.ts', 'apps/sidecar/src/send/queue.ts']
    expect(cycles.length).toBeGreaterThan(0)
    for (const v of cycles) expect(pair).toContain(v.from)
  }, 60_000)

  it('lets a higher layer import a lower one', async () => {
    const found = await violations()
    expect(found.filter((v) => v.from === 'apps/sidecar/src/library/views.ts')).toEqual([])
  }, 60_000)
})
