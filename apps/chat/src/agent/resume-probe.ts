/**
 * Checks, before anything is created, that the agent can resume a pinned session id: every turn
 * after the first depends on it, and without it each message would start a fresh context.
 */
import { execFile } from 'node:child_process'
import { ChatError } from '../errors.ts'
import type { AgentKind } from './argv.ts'

const PROBE_TIMEOUT_MS = 20_000
const REQUIRED_FLAGS: Readonly<Record<Exclude<AgentKind, 'command'>, readonly string[]>> = {
  copilot: ['--session-id'],
  claude: ['--session-id', '--resume'],
}

function helpText(program: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      ['--help'],
      { env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (err !== null && stdout === '' && stderr === '') reject(err)
        else resolve(`${stdout}\n${stderr}`)
      },
    )
  })
}

/**
 * Flags used when the agent's help lists them: `--no-ask-user` keeps a print-mode turn from
 * blocking on a question nobody at the phone can answer.
 */
const OPTIONAL_FLAGS: Readonly<Record<Exclude<AgentKind, 'command'>, readonly string[]>> = {
  copilot: ['--no-ask-user'],
  claude: [],
}

/**
 * Resolves when the agent supports a pinned, resumable session id; throws `CHAT_AGENT_NO_RESUME`
 * (exit 5) otherwise, including when the program is not found.
 */
export async function probeResumeSupport(input: {
  agent: AgentKind
  program?: string | undefined
  commandTemplate?: readonly string[] | undefined
  env: NodeJS.ProcessEnv
}): Promise<{ optionalFlags: string[] }> {
  if (input.agent === 'command') {
    if (!(input.commandTemplate ?? []).some((el) => el.includes('{sessionId}'))) {
      throw new ChatError(
        'CHAT_AGENT_NO_RESUME',
        '--agent-command has no {sessionId}: the agent could not resume one session across turns',
      )
    }
    return { optionalFlags: [] }
  }
  const program = input.program ?? input.agent
  let help: string
  try {
    help = await helpText(program, input.env)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new ChatError(
      'CHAT_AGENT_NO_RESUME',
      `could not run \`${program} --help\`${code === 'ENOENT' ? ': not found on PATH' : ''}`,
      { cause: err },
    )
  }
  const missing = REQUIRED_FLAGS[input.agent].filter((flag) => !help.includes(flag))
  if (missing.length > 0) {
    throw new ChatError(
      'CHAT_AGENT_NO_RESUME',
      `${program} does not list ${missing.join(', ')} in --help: it cannot resume a pinned session; upgrade it`,
    )
  }
  return {
    optionalFlags: OPTIONAL_FLAGS[input.agent].filter((flag) =>
      new RegExp(`(^|\\s)${flag}(\\s|=|,|$)`, 'm').test(help),
    ),
  }
}
