/**
 * The manifests that are packed as they are (docs/packages.md): each export of an installable
 * package names its source under the workspace condition first, then the dist/ files tsc emits for
 * that same source, so the workspace and an installed copy load the same module.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { PACKED } from '../../../scripts/pack-packages.ts'
import { SOURCE_CONDITION } from '../../../workspace-conditions.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const json = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(ROOT, path), 'utf8'))

describe('the installable packages’ manifests', () => {
  test.each(PACKED)('%s: every export is source first, then its own dist/ .d.ts and .js', (dir) => {
    const manifest = json(`${dir}/package.json`) as { exports: Record<string, unknown>; files: string[] }
    expect(manifest.files).toContain('dist')
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (key === './package.json') continue
      const entry = target as Record<string, string>
      expect(Object.keys(entry), key).toEqual([SOURCE_CONDITION, 'types', 'default'])
      const source = /^\.\/src\/(.+)\.ts$/.exec(entry[SOURCE_CONDITION] ?? '')?.[1]
      expect(source, `${key} names a src/*.ts file`).toMatch(/^[\w./-]+$/)
      expect(existsSync(join(ROOT, dir, `src/${source}.ts`)), `${dir}/src/${source}.ts exists`).toBe(true)
      expect(entry['types']).toBe(`./dist/${source}.d.ts`)
      expect(entry['default']).toBe(`./dist/${source}.js`)
    }
  })

  test('tsc resolves the same condition (customConditions), and a build clears it to check against .d.ts', () => {
    const base = json('tsconfig.base.json') as { compilerOptions: { customConditions: string[] } }
    expect(base.compilerOptions.customConditions).toEqual([SOURCE_CONDITION])
    for (const dir of PACKED) {
      const build = json(`${dir}/tsconfig.build.json`) as { compilerOptions: { customConditions: string[] } }
      expect(build.compilerOptions.customConditions, dir).toEqual([])
    }
  })

  test('every tsx script of the root manifest passes the condition to Node', () => {
    const scripts = (json('package.json') as { scripts: Record<string, string> }).scripts
    const runsTsx = Object.entries(scripts).filter(([, command]) => /\btsx\b/.test(command))
    expect(runsTsx.length).toBeGreaterThan(0)
    for (const [name, command] of runsTsx) expect(command, name).toContain(`--conditions=${SOURCE_CONDITION}`)
  })
})
