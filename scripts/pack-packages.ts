/**
 * `npm run pack:packages -- <folder>`: builds dist/ (JS + .d.ts, `tsc -b`) of the installable
 * packages, and the sidecar's bin as one bundle (scripts/bundle-sidecar.ts), and writes their npm
 * tarballs into <folder>, each packed with its manifest as it is.
 *
 * Each manifest's `exports` give the `@e2e-col/source` condition (src/*.ts, what the workspace
 * resolves: `npm start` and the tests run the sources with no build step) and then `types` and
 * `default` on dist/, which is what an installed copy resolves (see docs/packages.md).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleSidecar } from './bundle-sidecar.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The installable packages (folders under the root), in dependency order. */
export const PACKED = [
  'packages/protocol',
  'packages/sync',
  'packages/review',
  'packages/transport',
  'packages/client',
  'packages/signal-cli',
  'apps/sidecar',
] as const
/** The build roots: their references cover every packed package. */
const BUILDS = ['packages/client/tsconfig.build.json', 'apps/sidecar/tsconfig.build.json']

/** Builds from clean (so no file of a deleted source is shipped) and packs; returns the tarballs' paths. */
export function packPackages(destination: string): string[] {
  for (const dir of PACKED) rmSync(join(ROOT, dir, 'dist'), { recursive: true, force: true })
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-b', ...BUILDS.map((b) => join(ROOT, b))], { cwd: ROOT, stdio: 'inherit' })
  bundleSidecar(ROOT)
  const out = resolve(destination)
  mkdirSync(out, { recursive: true })
  return PACKED.map((dir) => {
    const printed = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', out], {
      cwd: join(ROOT, dir),
      encoding: 'utf8',
    })
    return join(out, printed.trim().split('\n').at(-1) ?? '')
  })
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2]
  if (destination === undefined) {
    console.error('usage: npm run pack:packages -- <folder>')
    process.exit(2)
  }
  for (const file of packPackages(destination)) console.log(file)
}
