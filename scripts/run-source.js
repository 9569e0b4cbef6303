// Runs a workspace bin's TypeScript entry point with no build step: tsx's ESM loader, plus a resolve
// hook that adds the `@e2e-col/source` export condition so workspace packages resolve to their
// sources too (tsx does not read tsconfig's customConditions). Used by the dev bins only.
import { register as registerHooks } from 'node:module'
import { register } from 'tsx/esm/api'

/** @param {URL} entry the bin's `src/main.ts` */
export async function runSource(entry) {
  registerHooks(
    'data:text/javascript,export function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"@e2e-col/source"]})}',
  )
  register()
  await import(entry.href)
}
