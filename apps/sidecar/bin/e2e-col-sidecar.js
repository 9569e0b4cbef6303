#!/usr/bin/env node
// Installed from its tarball (which ships dist/, not src/), this runs the built JavaScript with plain
// Node. In the repository, where src/ sits beside it, it runs the TypeScript source (scripts/run-source.js).
import { existsSync } from 'node:fs'

const source = new URL('../src/main.ts', import.meta.url)
if (existsSync(source)) {
  const { runSource } = await import('../../../scripts/run-source.js')
  await runSource(source)
} else await import('../dist/main.js')
