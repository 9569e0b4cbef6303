/**
 * docs/architecture.md "The sidecar's layers" cannot drift from the code: its drawing names the
 * layers of `.dependency-cruiser.cjs` (`SIDECAR_LAYERS`) in the same order, each entry in the
 * layer whose pattern holds it, and every folder and root file of `apps/sidecar/src`; its table of
 * folders names exactly the real folders.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const SRC = join(ROOT, 'apps/sidecar/src')
const LAYERS = (
  createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
    SIDECAR_LAYERS: readonly (readonly [string, string])[]
  }
).SIDECAR_LAYERS
const DOC = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
const SECTION = DOC.slice(
  DOC.indexOf("### The sidecar's layers"),
  DOC.indexOf('\n### ', DOC.indexOf("### The sidecar's layers") + 1),
)

/** The drawing's layers, top first as drawn: name and the files and folders it lists. */
function drawnLayers(): { name: string; entries: string[] }[] {
  const block = /```\n([\s\S]*?)```/.exec(SECTION)?.[1] ?? ''
  const layers: { name: string; entries: string[] }[] = []
  for (const line of block.split('\n')) {
    if (line.trim() === '' || line.trim() === '│') continue
    const named = /^ (\w+)\s+(.*)$/.exec(line)
    if (named?.[1] !== undefined && named[2] !== undefined) layers.push({ name: named[1], entries: [] })
    const rest = named?.[2] ?? line
    layers.at(-1)?.entries.push(
      ...rest
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== ''),
    )
  }
  return layers
}

/** The real folders and root source files (tests left out) of the sidecar's src. */
function realEntries(): string[] {
  return readdirSync(SRC)
    .filter((name) => !name.endsWith('.test.ts') && !name.endsWith('.d.ts'))
    .map((name) => (statSync(join(SRC, name)).isDirectory() ? `${name}/` : name))
    .filter((name) => name.endsWith('/') || name.endsWith('.ts'))
}

describe("docs/architecture.md's drawing of the sidecar", () => {
  it('names the layers of .dependency-cruiser.cjs, in their order', () => {
    // Drawn top first; listed lowest first.
    expect(drawnLayers().map((l) => l.name)).toEqual(LAYERS.reduceRight<string[]>((top, [name]) => [...top, name], []))
  })

  it('puts each file and folder in the layer whose pattern holds it, and names every one', () => {
    for (const { name, entries } of drawnLayers()) {
      const pattern = new RegExp(`^(${LAYERS.find(([n]) => n === name)?.[1] ?? '$^'})`)
      for (const entry of entries) expect(`${entry}${entry.endsWith('/') ? 'a.ts' : ''}`).toMatch(pattern)
    }
    const drawn = drawnLayers().flatMap((l) => l.entries)
    expect([...drawn].sort()).toEqual(realEntries().sort())
  })

  it('names in its table of folders each real folder, and no other', () => {
    const named = [...SECTION.matchAll(/^\| ([^|]+) \|/gm)]
      .flatMap((m) => [...(m[1] ?? '').matchAll(/`([\w-]+\/)`/g)].map((f) => f[1]))
      .filter((f): f is string => f !== undefined)
    const folders = realEntries().filter((e) => e.endsWith('/'))
    expect([...new Set(named)].sort()).toEqual(folders.sort())
  })
})
