/**
 * A parent-death guard for the agent: on Linux, `setpriv --pdeathsig KILL` (util-linux) sets
 * PR_SET_PDEATHSIG and execs the agent, so the kernel kills the agent when the loop dies, even by
 * SIGKILL. It covers the agent process only: what the agent started survives it (the startup sweep
 * of `state/leftover-turn.ts` kills those), and a setuid agent would drop the setting.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The setpriv binary on PATH, if any (Linux only). */
export function findSetpriv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, 'setpriv')
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

/** `argv` run under the guard when `setpriv` is known; unchanged otherwise. */
export function withParentDeathGuard(argv: readonly string[], setpriv: string | undefined): readonly string[] {
  return setpriv === undefined ? argv : [setpriv, '--pdeathsig', 'KILL', '--', ...argv]
}
