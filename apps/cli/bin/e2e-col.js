#!/usr/bin/env node
// Runs the TypeScript source directly (no build step) by registering tsx's ESM loader.
import { register as registerHooks } from 'node:module'
import { register } from 'tsx/esm/api'

// Workspace packages resolve to their TypeScript sources (the `@e2e-col/source` export condition).
registerHooks(
  'data:text/javascript,export function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"@e2e-col/source"]})}',
)
register()
await import('../src/main.ts')
