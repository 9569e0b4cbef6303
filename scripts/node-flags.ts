// The Node options a workspace bin's package asks for (`e2eColNodeOptions` in its package.json),
// for the launchers that run it as `node <bin>`: a shebang line cannot carry options portably
// (`env -S` is missing from older coreutils and from BusyBox).
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const OPTION = /^--[a-z][\w-]*(?:=[\w.-]+)?$/

/** The package.json nearest above `script`. */
function manifestOf(script: string): string {
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json')
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) throw new Error(`no package.json above ${script}`)
  }
}

/** The Node options `script`'s package asks for, in order; throws naming one that is not an option. */
export function binNodeOptions(script: string): string[] {
  const manifest = manifestOf(script)
  const listed = (JSON.parse(readFileSync(manifest, 'utf8')) as { e2eColNodeOptions?: unknown }).e2eColNodeOptions
  if (listed === undefined) return []
  if (!Array.isArray(listed) || !listed.every((o): o is string => typeof o === 'string' && OPTION.test(o)))
    throw new Error(`${manifest}: e2eColNodeOptions must list Node options such as "--max-semi-space-size=1"`)
  return listed
}
