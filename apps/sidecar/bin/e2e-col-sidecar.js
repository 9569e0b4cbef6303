#!/usr/bin/env node
// The Node options this package wants (package.json `e2eColNodeOptions`, decisions/0041) are given
// by its launchers (`e2e-col up`, `e2e-col sidecar`); a shebang cannot carry them portably.
// Installed from its tarball (which ships dist/, not src/), this runs the built JavaScript, bundled
// (dist/bundle/, decisions/0044), with plain Node. In the repository, where src/ sits beside it, it
// runs the TypeScript source (scripts/run-source.js).
import { existsSync } from 'node:fs'

const source = new URL('../src/main.ts', import.meta.url)
if (existsSync(source)) {
  const { runSource } = await import('../../../scripts/run-source.js')
  await runSource(source)
} else await import('../dist/bundle/main.js')
