/**
 * The layer rules of the other workspaces (.dependency-cruiser.cjs `PACKAGE_LAYERS` and
 * `WORKSPACE_LAYERS`, docs/architecture.md "Layers of the packages and apps") refuse what they are
 * for: dependency-cruiser, run with the repository's own configuration over a small tree laid out
 * like the repository, reports a package importing one above it or one beside it, an app's upward
 * import (a type-only one too), and a file in no layer, whether it imports something or is only
 * imported; downward imports go through. The docs' lists are the configuration's.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const CRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')
const CONFIG = join(ROOT, '.dependency-cruiser.cjs')

type Layers = ReadonlyArray<readonly [string, string]>
interface LayerLists {
  readonly PACKAGE_LAYERS: Layers
  readonly WORKSPACE_LAYERS: ReadonlyArray<readonly [string, string, Layers]>
}
const { PACKAGE_LAYERS, WORKSPACE_LAYERS } = (createRequire(import.meta.url)(CONFIG) as { layers: LayerLists }).layers

interface Violation {
  readonly rule: { readonly name: string }
  readonly from: string
  readonly to: string
}

const tree = mkdtempSync(join(tmpdir(), 'e2e-col-workspace-layers-'))
afterAll(() => rmSync(tree, { recursive: true, force: true }))

function write(path: string, text: string): void {
  mkdirSync(dirname(join(tree, path)), { recursive: true })
  writeFileSync(join(tree, path), text)
}

async function cruise(): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CRUISE, '--config', CONFIG, '--output-type', 'json', 'apps', 'packages'],
    { cwd: tree, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations
}

let cruised: Promise<Violation[]> | undefined
const violations = (): Promise<Violation[]> => (cruised ??= cruise())
const LAYER_RULE = /^layer-|-in-layers$/
const layerViolationsFrom = async (from: string): Promise<Violation[]> =>
  (await violations()).filter((v) => v.from === from && LAYER_RULE.test(v.rule.name))

function expectReported(rule: string, from: string, to: string): Promise<void> {
  return violations().then((found) =>
    expect(found).toContainEqual(expect.objectContaining({ rule: expect.objectContaining({ name: rule }), from, to })),
  )
}

describe('the layer rules of the packages and apps', () => {
  write('tsconfig.json', JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } }))
  // Packages: the wire (standalone) reaching up into the client, and two packages of one layer.
  write('packages/client/src/ids.ts', 'export const clientId = 1\n')
  write(
    'packages/protocol/src/ids.ts',
    "import { clientId } from '../../client/src/ids.ts'\nexport const id = clientId\n",
  )
  write('packages/review/src/limits.ts', 'export const limit = 1\n')
  write(
    'packages/transport/src/errors.ts',
    "import { limit } from '../../review/src/limits.ts'\nexport const code = limit\n",
  )
  // Downward between packages: the client reading the wire.
  write('packages/client/src/client.ts', "import { id } from '../../protocol/src/ids.ts'\nexport const client = id\n")
  // An app: chat's state (below the loop) importing the loop, and the loop reading a port (downward).
  write('apps/chat/src/loop/chat-loop.ts', 'export const loop = 1\n')
  write('apps/chat/src/state/chat-state.ts', "import { loop } from '../loop/chat-loop.ts'\nexport const state = loop\n")
  write('apps/chat/src/signal/port.ts', 'export const port = 1\n')
  write('apps/chat/src/loop/poster.ts', "import { port } from '../signal/port.ts'\nexport const poster = port\n")
  // Type-only upward: a part of the demo's page naming a type of review/, above it.
  write('apps/demo/src/review/tracked.ts', 'export interface Tracked { readonly on: boolean }\n')
  write(
    'apps/demo/src/page/authors.ts',
    "import type { Tracked } from '../review/tracked.ts'\nexport const authors = (t: Tracked): boolean => t.on\n",
  )
  // The page's entry (page/main.ts) sits on top, so it may read review/.
  write(
    'apps/demo/src/page/main.ts',
    "import type { Tracked } from '../review/tracked.ts'\nexport const page = (t: Tracked): boolean => t.on\n",
  )
  // Files in no layer: one that imports, one that is only imported.
  write('apps/cli/src/errors.ts', 'export const cliError = 1\n')
  write('apps/cli/src/stray.ts', "import { cliError } from './errors.ts'\nexport const stray = cliError\n")
  write('apps/toy-signal/src/loose-end.ts', 'export const loose = 1\n')
  write('apps/toy-signal/src/main.ts', "import { loose } from './loose-end.ts'\nexport const main = loose\n")

  it('reports a package importing a package of a higher layer', async () => {
    await expectReported('layer-package-standalone', 'packages/protocol/src/ids.ts', 'packages/client/src/ids.ts')
  }, 60_000)

  it('reports a package importing another of its own layer', async () => {
    await expectReported(
      'layer-package-extending-side-by-side',
      'packages/transport/src/errors.ts',
      'packages/review/src/limits.ts',
    )
  }, 60_000)

  it("reports an app's import from a lower layer into a higher one", async () => {
    await expectReported('layer-chat-state', 'apps/chat/src/state/chat-state.ts', 'apps/chat/src/loop/chat-loop.ts')
  }, 60_000)

  it('reports an upward import made only of types', async () => {
    await expectReported('layer-demo-page', 'apps/demo/src/page/authors.ts', 'apps/demo/src/review/tracked.ts')
  }, 60_000)

  it('reports a file in no layer, whether it imports or is only imported', async () => {
    await expectReported('cli-in-layers', 'apps/cli/src/stray.ts', 'apps/cli/src/errors.ts')
    await expectReported(
      'toy-signal-imports-in-layers',
      'apps/toy-signal/src/main.ts',
      'apps/toy-signal/src/loose-end.ts',
    )
  }, 60_000)

  it('lets a higher layer import a lower one, and a page entry read the folders below it', async () => {
    expect(await layerViolationsFrom('apps/chat/src/loop/poster.ts')).toEqual([])
    expect(await layerViolationsFrom('packages/client/src/client.ts')).toEqual([])
    expect(await layerViolationsFrom('apps/demo/src/page/main.ts')).toEqual([])
  }, 60_000)
})

/** The section of docs/architecture.md that draws these layers. */
function docsSection(): string {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
  const start = text.indexOf('## Layers of the packages and apps')
  expect(start).toBeGreaterThan(-1)
  const end = text.indexOf('\n## ', start)
  return text.slice(start, end === -1 ? undefined : end)
}

describe('docs/architecture.md and the layer lists', () => {
  it('draws each list as the configuration has it, lowest first, and no other', () => {
    const drawn = [...docsSection().matchAll(/^`([^`]+)`: (.+)$/gm)].map(([, root, names]) => `${root}: ${names}`)
    const configured = [
      `packages/: ${PACKAGE_LAYERS.map(([name]) => name).join(' → ')}`,
      ...WORKSPACE_LAYERS.map(([, root, layers]) => `${root}: ${layers.map(([name]) => name).join(' → ')}`),
    ]
    expect(drawn.sort()).toEqual(configured.sort())
  })

  it('names each folder and file in the layer the configuration puts it in', () => {
    const section = docsSection()
    const checked: string[] = []
    for (const [, root, layers] of [['packages', 'packages/', PACKAGE_LAYERS] as const, ...WORKSPACE_LAYERS]) {
      const start = section.indexOf(`\`${root}\`: `)
      expect(start, root).toBeGreaterThan(-1)
      const table = section.slice(start, section.indexOf('\n\n', section.indexOf('\n|', start)))
      for (const [name, pattern] of layers) {
        const row = new RegExp(`^\\| ${name} \\| (.+)$`, 'm').exec(table)
        expect(row, `${root}: a row for ${name}`).not.toBeNull()
        for (const [, entry] of (row?.[1] ?? '').matchAll(/`([\w./-]+(?:\/|\.ts))`/g)) {
          const path = `${root}${entry ?? ''}${entry?.endsWith('/') === true ? 'any.ts' : ''}`
          expect(path, `${root}${entry ?? ''} in ${name}`).toMatch(new RegExp(`^${root}(${pattern})`))
          checked.push(path)
        }
      }
    }
    expect(checked.length).toBeGreaterThan(0)
  })
})
