/** Composition root of the `e2e-col` bin: parse, run, exit. */
import { execFileSync } from 'node:child_process'
import { runChat } from './chat.ts'
import { agentEnvironment, loadConfig } from './config.ts'
import { exitCodeOf } from './errors.ts'
import { helpText } from './help.ts'
import { takeParentPipe, watchParentPipe } from './parent-pipe.ts'

function tmuxSession(env: NodeJS.ProcessEnv): string | undefined {
  if (env['TMUX'] === undefined) return undefined
  try {
    return (
      execFileSync('tmux', ['display-message', '-p', '#S'], { encoding: 'utf8', timeout: 2000 }).trim() || undefined
    )
  } catch {
    return undefined
  }
}

async function main(): Promise<number> {
  const stop = new AbortController()
  let invocation
  let watch
  try {
    const parentPipe = takeParentPipe(process.env)
    invocation = loadConfig(process.argv.slice(2), process.env)
    // Started by `e2e-col chat`: when that process ends, however it ends, this one stops too.
    watch =
      parentPipe === undefined
        ? undefined
        : watchParentPipe(parentPipe, () => {
            console.error('[e2e-col] the e2e-col process that started this chat is gone')
            stop.abort()
          })
  } catch (err) {
    console.error(`e2e-col: ${(err as Error).message}\n(e2e-col --help for usage)`)
    return exitCodeOf(err)
  }
  if (invocation.kind === 'help') {
    watch?.close()
    console.log(helpText())
    return 0
  }
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, () => stop.abort())
  const config = { ...invocation.config, tmuxSession: tmuxSession(process.env) }
  try {
    return await runChat(config, {
      agentEnv: agentEnvironment(process.env),
      log: (line) => console.error(`[e2e-col] ${line}`),
      stop: stop.signal,
    })
  } finally {
    watch?.close()
  }
}

process.exitCode = await main()
