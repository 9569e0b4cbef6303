// The Node options a bin asks for on its shebang line (`#!/usr/bin/env -S node --flag=value`), so a
// launcher that runs it as `node <bin>` (which bypasses the shebang) gives it the same options.
import { readFileSync } from 'node:fs'

const SHEBANG = /^#!\/usr\/bin\/env -S node((?:[ \t]+--[\w-]+(?:=\S+)?)*)[ \t]*$/

/** The Node options on `script`'s shebang line, in order (none for `#!/usr/bin/env node`). */
export function shebangNodeFlags(script: string): string[] {
  const first = readFileSync(script, 'utf8').split('\n', 1)[0] ?? ''
  return (SHEBANG.exec(first)?.[1] ?? '').split(/[ \t]+/).filter((flag) => flag !== '')
}
