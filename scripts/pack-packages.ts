/**
 * `npm run pack:packages -- <folder>`: builds dist/ (JS + .d.ts, `tsc -b`) of the browser packages
 * and writes their npm tarballs into <folder>, each with a manifest whose exports point at dist/.
 *
 * The workspace keeps its exports on src/*.ts, so `npm start`, the tests and the bench run the
 * sources with no build step; only the packed manifest differs (see docs/packages.md).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The packages a browser app installs, in dependency order. */
export const PACKED = ['protocol', 'sync', 'transport', 'client'] as const

interface Manifest {
  name: string
  version: string
  description?: string
  type?: string
  exports: Record<string, string>
  sideEffects?: boolean
  dependencies?: Record<string, string>
}

/** `./src/x.ts` → `{ types: ./dist/x.d.ts, default: ./dist/x.js }`; other targets unchanged. */
function distExports(exports: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, target] of Object.entries(exports)) {
    const match = /^\.\/src\/(.+)\.ts$/.exec(target)
    out[key] = match === null ? target : { types: `./dist/${match[1]}.d.ts`, default: `./dist/${match[1]}.js` }
  }
  return out
}

/** Builds and packs; returns the tarballs' paths. */
export function packPackages(destination: string): string[] {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-b', join(ROOT, 'packages/client/tsconfig.build.json')], { stdio: 'inherit' })
  mkdirSync(destination, { recursive: true })
  const tarballs: string[] = []
  for (const name of PACKED) {
    const dir = join(ROOT, 'packages', name)
    const source = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest
    const staging = mkdtempSync(join(tmpdir(), `e2e-col-pack-${name}-`))
    try {
      cpSync(join(dir, 'dist'), join(staging, 'dist'), {
        recursive: true,
        filter: (path) => !path.endsWith('.tsbuildinfo'),
      })
      const manifest = {
        name: source.name,
        version: source.version,
        description: source.description,
        type: source.type,
        exports: distExports(source.exports),
        ...(source.sideEffects === undefined ? {} : { sideEffects: source.sideEffects }),
        files: ['dist'],
        dependencies: source.dependencies ?? {},
      }
      writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
      const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', resolve(destination)], {
        cwd: staging,
        encoding: 'utf8',
      })
      const file = out.trim().split('\n').at(-1) ?? ''
      tarballs.push(join(resolve(destination), file))
    } finally {
      rmSync(staging, { recursive: true, force: true })
    }
  }
  return tarballs
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2]
  if (destination === undefined) {
    console.error('usage: npm run pack:packages -- <folder>')
    process.exit(2)
  }
  for (const file of packPackages(destination)) console.log(file)
}
