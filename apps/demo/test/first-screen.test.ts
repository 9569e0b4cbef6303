/**
 * What a newcomer meets first. A clean `npm ci`: npm 11 warns about every dependency whose install
 * script package.json's allowScripts does not decide (allow or deny), and a newcomer cannot tell
 * whether to act, so every installed package with an install script is decided there. And the
 * README opens with exactly two commands: install-and-start, and test.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall']

/** Every package folder under a node_modules (scoped ones included), one level deep. */
function packageDirs(modules: string): string[] {
  const dirs: string[] = []
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const dir = join(modules, entry.name)
    if (entry.name.startsWith('@'))
      dirs.push(
        ...readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => join(dir, e.name)),
      )
    else dirs.push(dir)
    const nested = join(dir, 'node_modules')
    try {
      dirs.push(...packageDirs(nested))
    } catch {
      // no nested node_modules
    }
  }
  return dirs
}

test('every installed dependency with an install script is allowed or denied in allowScripts', () => {
  const decided = Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> })
      .allowScripts ?? {},
  ).map((key) => key.replace(/(.)@.*$/, '$1'))
  const undecided = new Set<string>()
  for (const dir of packageDirs(join(ROOT, 'node_modules'))) {
    let manifest: { name?: string; scripts?: Record<string, string> }
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest
    } catch {
      continue
    }
    const scripted = INSTALL_SCRIPTS.some((s) => manifest.scripts?.[s] !== undefined)
    if (scripted && manifest.name !== undefined && !decided.includes(manifest.name)) undecided.add(manifest.name)
  }
  expect([...undecided].sort()).toEqual([])
})

test("the README's first screen holds exactly the two commands: install and start, and test", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)
  const commands = (firstBlock?.[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '')
  expect(commands).toEqual(['npm ci && npm start', 'npm test'])
  // On the first screen: before the first 20 lines are over.
  expect(readme.slice(0, firstBlock?.index).split('\n').length).toBeLessThan(20)
})
