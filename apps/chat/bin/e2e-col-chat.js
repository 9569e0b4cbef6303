#!/usr/bin/env node
// The `e2e-col-chat` bin (`e2e-col chat` runs it): runs the TypeScript source directly through tsx, no build step.
import { register as registerHooks } from 'node:module'
import { register } from 'tsx/esm/api'

// Workspace packages resolve to their TypeScript sources (the `@e2e-col/source` export condition).
registerHooks(
  'data:text/javascript,export function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"@e2e-col/source"]})}',
)
register()
await import('../src/main.ts')
