/**
 * Refuses a function nested in another function longer than 60 lines in the `src` folders of
 * the apps and packages (tests and fixtures aside), its whole span counted as oxlint counts the outer
 * bound of 150 (docs/architecture.md "Functions over 150 lines"). oxlint has one bound for every
 * function, so this second one is read from the TypeScript syntax tree. Run by `npm run lint`;
 * `tsx scripts/inner-functions.ts DIR` checks another checkout.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

export const MAX_INNER_LINES = 60

/** Each nested function over the bound in one file, as `file:line: name, N lines`. */
export function longInnerFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const line = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line
  const visit = (node: ts.Node, inside: boolean): void => {
    const isFunction = ts.isFunctionLike(node) && 'body' in node && node.body !== undefined
    if (isFunction && inside) {
      const lines = line(node.end) - line(node.getStart(source)) + 1
      if (lines > MAX_INNER_LINES) {
        const name = 'name' in node && node.name !== undefined ? node.name.getText(source) : '(anonymous)'
        found.push(`${file}:${line(node.getStart(source)) + 1}: ${name}, ${lines} lines`)
      }
    }
    ts.forEachChild(node, (child) => visit(child, inside || isFunction))
  }
  visit(source, false)
  return found
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.argv[2] ?? process.cwd()
  const files = execFileSync('git', ['ls-files', 'apps/*/src/*.ts', 'packages/*/src/*.ts'], { cwd: root })
    .toString()
    .split('\n')
    .filter((f) => f !== '' && !/(\.test|-fixture|\.d)\.ts$/.test(f))
  const found = files.flatMap((f) => longInnerFunctions(f, readFileSync(join(root, f), 'utf8')))
  for (const f of found) console.error(`${f} (an inner function may have at most ${MAX_INNER_LINES})`)
  if (found.length > 0) process.exit(1)
}
