/**
 * The argv of one turn for each supported agent. Always an array handed to spawn without a shell:
 * the prompt is exactly one element, whatever it contains.
 */
import { ChatError } from '../errors.ts'

/** Which agent CLI drives the turns. */
export type AgentKind = 'copilot' | 'claude' | 'command'

/** Read-only defaults: look at the code, run nothing that writes. */
export const DEFAULT_ALLOW_TOOLS: Readonly<Record<AgentKind, readonly string[]>> = {
  copilot: ['view', 'grep', 'glob', 'shell(git status)', 'shell(git log)', 'shell(git diff)', 'shell(cat)'],
  claude: ['Read', 'Grep', 'Glob', 'Bash(git status:*)', 'Bash(git log:*)', 'Bash(git diff:*)', 'Bash(cat:*)'],
  command: ['view', 'grep', 'glob'],
}

/** What a turn's argv is built from. */
export interface TurnArgvInput {
  agent: AgentKind
  sessionId: string
  prompt: string
  /** The effective tool allowlist (ignored when `allTools`). */
  allowTools: readonly string[]
  /** `--dangerous-all-tools`: the agent's allow-all-tools flag (never allow-all paths or URLs). */
  allTools: boolean
  /** False on the very first turn of a new session (claude pins it with --session-id, later resumes). */
  sessionStarted: boolean
  /** For `command`: the argv template with {sessionId}, {prompt}, {allowTool}. */
  commandTemplate?: readonly string[] | undefined
  /** Program path override (tests, or an agent outside PATH). */
  program?: string | undefined
  /** Optional flags the resume probe found in the agent's help (e.g. copilot's --no-ask-user). */
  optionalFlags?: readonly string[] | undefined
}

/** The effective allowlist, as posted verbatim in the announcement. */
export function effectiveAllowlist(agent: AgentKind, allowTools: readonly string[], allTools: boolean): string[] {
  if (allTools)
    return [agent === 'claude' ? '--dangerously-skip-permissions (all tools)' : '--allow-all-tools (all tools)']
  return allowTools.length > 0 ? [...allowTools] : [...DEFAULT_ALLOW_TOOLS[agent]]
}

/**
 * Expands an argv template: `{sessionId}` and `{prompt}` are replaced inside any element; an element
 * containing `{allowTool}` is repeated once per allowed tool (and dropped when there are none).
 */
export function expandTemplate(
  template: readonly string[],
  values: { sessionId: string; prompt: string; allowTools: readonly string[] },
): string[] {
  const fill = (el: string) => el.replaceAll('{sessionId}', values.sessionId).replaceAll('{prompt}', values.prompt)
  const argv: string[] = []
  for (const el of template) {
    if (el.includes('{allowTool}')) {
      for (const tool of values.allowTools) argv.push(fill(el).replaceAll('{allowTool}', tool))
    } else {
      argv.push(fill(el))
    }
  }
  return argv
}

/** Builds the argv of one turn. */
export function buildTurnArgv(input: TurnArgvInput): string[] {
  const tools = input.allowTools.length > 0 ? input.allowTools : DEFAULT_ALLOW_TOOLS[input.agent]
  switch (input.agent) {
    case 'copilot': {
      const program = input.program ?? 'copilot'
      const grant = input.allTools ? ['--allow-all-tools'] : tools.flatMap((t) => ['--allow-tool', t])
      return [
        program,
        '--session-id',
        input.sessionId,
        '--no-color',
        '-s',
        '-p',
        input.prompt,
        ...grant,
        ...(input.optionalFlags ?? []),
      ]
    }
    case 'claude': {
      const program = input.program ?? 'claude'
      const session = input.sessionStarted ? ['--resume', input.sessionId] : ['--session-id', input.sessionId]
      const grant = input.allTools ? ['--dangerously-skip-permissions'] : ['--allowedTools', tools.join(',')]
      return [program, '-p', input.prompt, ...session, ...grant]
    }
    case 'command': {
      if (input.commandTemplate === undefined || input.commandTemplate.length === 0) {
        throw new ChatError('CHAT_USAGE', '--agent command needs --agent-command')
      }
      return expandTemplate(input.commandTemplate, {
        sessionId: input.sessionId,
        prompt: input.prompt,
        allowTools: input.allTools ? ['*'] : tools,
      })
    }
  }
}

/**
 * Parses `--agent-command`: a JSON array of strings, or a whitespace-separated list (no quoting, no
 * shell: use the JSON form for elements with spaces).
 */
export function parseCommandTemplate(text: string): string[] {
  const trimmed = text.trim()
  let argv: unknown
  if (trimmed.startsWith('[')) {
    try {
      argv = JSON.parse(trimmed)
    } catch {
      throw new ChatError('CHAT_USAGE', '--agent-command is not a valid JSON array')
    }
  } else {
    argv = trimmed.split(/\s+/).filter((s) => s !== '')
  }
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) {
    throw new ChatError('CHAT_USAGE', '--agent-command must be a non-empty argv (JSON array of strings or words)')
  }
  if (!argv.some((a: string) => a.includes('{prompt}')))
    throw new ChatError('CHAT_USAGE', '--agent-command must contain {prompt}')
  return argv as string[]
}
