// The sidecar's bin as one bundle (decisions/0044): after `tsc -b` built apps/sidecar/dist/, esbuild
// writes dist/bundle/main.js (what the bin runs) and dist/bundle/index.js (the same start, for the
// scale bench), sharing their chunks. Node loads a few files instead of several hundred modules,
// which is most of what an idle sidecar's code costs. The package's own exports stay tsc's output.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { buildSync } from 'esbuild'

/** Writes apps/sidecar/dist/bundle/ from apps/sidecar/dist/ (built first); returns its folder. */
export function bundleSidecar(root: string): string {
  const dist = join(root, 'apps/sidecar/dist')
  const outdir = join(dist, 'bundle')
  rmSync(outdir, { recursive: true, force: true })
  buildSync({
    absWorkingDir: root,
    entryPoints: { main: join(dist, 'main.js'), index: join(dist, 'index.js') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    // A native addon, loaded from the installed package.
    external: ['better-sqlite3'],
    // The CommonJS libraries in the bundle (ws, pino) call `require` for Node's own modules.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    legalComments: 'linked',
    // Stack traces read with `NODE_OPTIONS=--enable-source-maps`; without it Node never loads the maps.
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  })
  return outdir
}
