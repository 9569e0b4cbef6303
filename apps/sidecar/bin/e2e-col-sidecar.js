#!/usr/bin/env -S node --max-semi-space-size=1
// --max-semi-space-size=1: a small young generation (V8's own default grows to 16 MiB per semi-space)
// keeps the sidecar's memory down at a small cost in GC time: docs/performance.md §13 measures both.
// `e2e-col up` reads this line and passes the same options (scripts/node-flags.ts).
// Installed from its tarball (which ships dist/, not src/), this runs the built JavaScript with plain
// Node. In the repository, where src/ sits beside it, it runs the TypeScript source (scripts/run-source.js).
import { existsSync } from 'node:fs'

const source = new URL('../src/main.ts', import.meta.url)
if (existsSync(source)) {
  const { runSource } = await import('../../../scripts/run-source.js')
  await runSource(source)
} else await import('../dist/main.js')
