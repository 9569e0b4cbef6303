/**
 * The command line and environment of `e2e-col chat`, read once into a frozen {@link ChatConfig}.
 * Flags win over environment. Only this file reads `env` for settings.
 */
import { hostname } from 'node:os'
import { parseArgs } from 'node:util'
import { E164 as E164_PATTERN, E164_MESSAGE, isLoopbackHost, signalCliAccount, signalCliUrl } from '@e2e-col/signal-cli'
import { z } from 'zod'
import { parseCommandTemplate, type AgentKind } from './agent/argv.ts'
import { ChatError } from './errors.ts'
import { stateDir } from './state/chat-state.ts'

const E164 = z.string().regex(E164_PATTERN, E164_MESSAGE)
const PositiveInt = (max: number) => z.coerce.number().int().min(1).max(max)

/** Default size of the file `output` sends: its base64 fits a 16 MiB request body. */
export const DEFAULT_ATTACHMENT_BYTES = 8 * 1024 * 1024
/** Highest `--max-attachment-bytes`: well under Signal's 100 MiB attachment limit. */
export const MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024

const Settings = z.object({
  topic: z.string().trim().min(1).max(4000).optional(),
  operators: z
    .array(E164)
    .min(1, 'no operator: pass --operator +E164 (or E2E_COL_CHAT_OPERATORS); nobody else may drive the agent'),
  allowTools: z.array(z.string().trim().min(1).max(200)).max(64),
  allTools: z.boolean(),
  agent: z.enum(['copilot', 'claude', 'command']),
  agentCommand: z.string().optional(),
  agentProgram: z.string().min(1).optional(),
  groupName: z.string().trim().min(1).max(120).optional(),
  host: z.string().trim().min(1).max(64),
  retryBudget: PositiveInt(1000),
  inboxCapacity: PositiveInt(1000),
  unsafeRemoteEndpoint: z.boolean(),
  resume: z.string().min(1).max(200).optional(),
  turnTimeoutSeconds: PositiveInt(7 * 24 * 3600).optional(),
  // The same zod pieces as the sidecar's SIGNAL_CLI_URL / SIGNAL_CLI_ACCOUNT.
  signalUrl: signalCliUrl,
  account: signalCliAccount,
  sidecarUrl: z.url({ protocol: /^wss?$/ }).optional(),
  // Never echoed back: zod's message names the rule, not the value.
  agentToken: z.string().trim().min(8, 'the agent token is too short').max(200).optional(),
  maxReplyBytes: z.coerce
    .number()
    .int()
    .min(2000)
    .max(64 * 1024 * 1024),
  deliveryTimeoutSeconds: PositiveInt(7 * 24 * 3600),
  maxAttachmentBytes: z.coerce.number().int().min(1024).max(MAX_ATTACHMENT_BYTES),
})

/** Everything `runChat` needs, validated. */
export interface ChatConfig {
  topic: string | undefined
  operators: readonly string[]
  allowTools: readonly string[]
  allTools: boolean
  agent: AgentKind
  agentCommand: readonly string[] | undefined
  agentProgram: string | undefined
  groupName: string | undefined
  host: string
  tmuxSession: string | undefined
  retryBudget: number
  inboxCapacity: number
  unsafeRemoteEndpoint: boolean
  resume: string | undefined
  turnTimeoutMs: number | undefined
  signalUrl: URL
  account: string | undefined
  /** The local sidecar (`ws://127.0.0.1:7600`) that relays browser consoles, when set. */
  sidecarUrl: URL | undefined
  /**
   * The sidecar agent token (`e2e-col agent token`) document prompts suggest changes with. A
   * secret: masked in everything the chat posts or logs, never in an error.
   */
  agentToken: string | undefined
  stateRoot: string
  /** Output kept in memory and posted per turn; beyond it the whole output goes to a file. */
  maxReplyBytes: number
  /** A reply that makes no progress this long is given up and reported failed. */
  deliveryTimeoutMs: number
  /** The most bytes of a saved output that `output` sends as one file. */
  maxAttachmentBytes: number
}

/** What the command line asks for. */
export type Invocation = { kind: 'help' } | { kind: 'run'; config: ChatConfig }

const OPTIONS = {
  operator: { type: 'string', multiple: true },
  'allow-tool': { type: 'string', multiple: true },
  'dangerous-all-tools': { type: 'boolean' },
  agent: { type: 'string' },
  'agent-command': { type: 'string' },
  'agent-program': { type: 'string' },
  'group-name': { type: 'string' },
  host: { type: 'string' },
  'retry-budget': { type: 'string' },
  'inbox-capacity': { type: 'string' },
  'unsafe-remote-endpoint': { type: 'boolean' },
  resume: { type: 'string' },
  'turn-timeout': { type: 'string' },
  'max-reply-bytes': { type: 'string' },
  'delivery-timeout': { type: 'string' },
  'max-attachment-bytes': { type: 'string' },
  sidecar: { type: 'string' },
  'agent-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

/**
 * Reads `argv` (after `e2e-col`, so it starts with `chat`) and `env`. Throws `CHAT_USAGE`,
 * `CHAT_CONFIG_INVALID` or `CHAT_NO_OPERATOR`, all exit 1.
 */
export function loadConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Invocation {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[]; strict: true }>
  >
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    throw new ChatError('CHAT_USAGE', (err as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help === true || positionals.length === 0) return { kind: 'help' }
  const [command, topic, ...rest] = positionals
  if (command !== 'chat')
    throw new ChatError('CHAT_USAGE', `unknown command "${command}": try \`e2e-col chat "<topic>"\``)
  if (rest.length > 0) throw new ChatError('CHAT_USAGE', 'too many arguments: quote the topic')
  if (topic === undefined && values.resume === undefined)
    throw new ChatError('CHAT_USAGE', 'a topic is required (or --resume <groupId>)')

  const result = Settings.safeParse({
    topic,
    operators: values.operator ?? list(env['E2E_COL_CHAT_OPERATORS']),
    allowTools: values['allow-tool'] ?? [],
    allTools: values['dangerous-all-tools'] ?? false,
    agent: values.agent ?? env['E2E_COL_CHAT_AGENT'] ?? 'copilot',
    agentCommand: values['agent-command'] ?? env['E2E_COL_CHAT_AGENT_COMMAND'],
    agentProgram: values['agent-program'],
    groupName: values['group-name'],
    host: values.host ?? hostname().split('.')[0] ?? 'host',
    retryBudget: values['retry-budget'] ?? 10,
    inboxCapacity: values['inbox-capacity'] ?? env['E2E_COL_CHAT_INBOX_CAPACITY'] ?? 32,
    unsafeRemoteEndpoint: values['unsafe-remote-endpoint'] ?? false,
    resume: values.resume,
    turnTimeoutSeconds: values['turn-timeout'],
    signalUrl: env['SIGNAL_CLI_URL'],
    sidecarUrl: values.sidecar ?? (env['E2E_COL_SIDECAR_URL'] === '' ? undefined : env['E2E_COL_SIDECAR_URL']),
    account: env['SIGNAL_CLI_ACCOUNT'] === '' ? undefined : env['SIGNAL_CLI_ACCOUNT'],
    agentToken:
      values['agent-token'] ?? (env['E2E_COL_CHAT_AGENT_TOKEN'] === '' ? undefined : env['E2E_COL_CHAT_AGENT_TOKEN']),
    maxReplyBytes: values['max-reply-bytes'] ?? 1024 * 1024,
    deliveryTimeoutSeconds: values['delivery-timeout'] ?? 15 * 60,
    maxAttachmentBytes: values['max-attachment-bytes'] ?? DEFAULT_ATTACHMENT_BYTES,
  })
  if (!result.success) {
    const noOperator = result.error.issues.some((i) => i.path[0] === 'operators' && i.code === 'too_small')
    throw new ChatError(noOperator ? 'CHAT_NO_OPERATOR' : 'CHAT_CONFIG_INVALID', z.prettifyError(result.error))
  }
  const s = result.data
  if (s.agent === 'command' && s.agentCommand === undefined)
    throw new ChatError('CHAT_USAGE', '--agent command needs --agent-command')
  return {
    kind: 'run',
    config: Object.freeze({
      topic: s.topic,
      operators: Object.freeze([...new Set(s.operators)]),
      allowTools: Object.freeze(s.allowTools),
      allTools: s.allTools,
      agent: s.agent,
      agentCommand: s.agentCommand === undefined ? undefined : Object.freeze(parseCommandTemplate(s.agentCommand)),
      agentProgram: s.agentProgram,
      groupName: s.groupName,
      host: s.host,
      tmuxSession: undefined,
      retryBudget: s.retryBudget,
      inboxCapacity: s.inboxCapacity,
      unsafeRemoteEndpoint: s.unsafeRemoteEndpoint,
      resume: s.resume,
      turnTimeoutMs: s.turnTimeoutSeconds === undefined ? undefined : s.turnTimeoutSeconds * 1000,
      signalUrl: s.signalUrl as URL,
      sidecarUrl: s.sidecarUrl === undefined ? undefined : new URL(s.sidecarUrl),
      agentToken: s.agentToken,
      account: s.account,
      stateRoot: stateDir(env),
      maxReplyBytes: s.maxReplyBytes,
      deliveryTimeoutMs: s.deliveryTimeoutSeconds * 1000,
      maxAttachmentBytes: s.maxAttachmentBytes,
    }),
  }
}

/** True for 127.0.0.0/8, ::1 and localhost (the sidecar's rule). */
export function isLoopbackUrl(url: URL): boolean {
  return isLoopbackHost(url.hostname)
}

/** The agent's environment: this process's, without the agent token (the chat alone posts suggestions). */
export function agentEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { E2E_COL_CHAT_AGENT_TOKEN: _token, ...rest } = env
  return rest
}
