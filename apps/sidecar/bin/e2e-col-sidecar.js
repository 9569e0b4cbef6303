#!/usr/bin/env node
// Installed from its tarball (which ships dist/, not src/), this runs the built JavaScript with plain
// Node. In the repository, where src/ sits beside it, it runs the TypeScript source through tsx, with
// the workspace packages resolved to their sources too (the `@e2e-col/source` condition): no build step.
import { existsSync } from 'node:fs'

const source = new URL('../src/main.ts', import.meta.url)
if (existsSync(source)) {
  const { register } = await import('node:module')
  register(
    'data:text/javascript,export function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"@e2e-col/source"]})}',
  )
  const tsx = await import('tsx/esm/api')
  tsx.register()
  await import(source.href)
} else await import('../dist/main.js')
