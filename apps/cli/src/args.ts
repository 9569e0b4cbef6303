/**
 * The command line of `e2e-col`: `setup`, `up`, `chat` (handed to the chat loop's own binary),
 * `docs`, `inspect` and `sidecar` (handed to the sidecar's own binary) and `--help`, parsed once into a typed command. Values are checked here, at the edge.
 */
import { hostname } from 'node:os'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'

const E164 = /^\+[1-9]\d{6,14}$/

export interface SetupCommand {
  readonly kind: 'setup'
  readonly mode: 'link' | 'register' | 'ask'
  readonly number?: string
  readonly stateDir?: string
  readonly daemonUrl?: string
  readonly deviceName: string
  readonly linkAttempts: number
  readonly page: boolean
  readonly captcha?: string
  readonly code?: string
  readonly pin?: string
  readonly voice: boolean
  readonly force: boolean
}

export interface UpCommand {
  readonly kind: 'up'
  readonly stateDir?: string
  readonly daemonUrl?: string
  /** Sidecar listen address override (`HOST:PORT`). */
  readonly listen?: string
  readonly pagePort: number
  /** Open the home page in the person's browser once ready (`--no-open`: only print it). */
  readonly open: boolean
}

export type Command =
  | SetupCommand
  | UpCommand
  | { readonly kind: 'chat'; readonly args: readonly string[] }
  /** One of the sidecar's own commands (`docs`, `inspect`, or `sidecar …` for the rest), passed on whole. */
  | { readonly kind: 'sidecar'; readonly args: readonly string[] }
  | { readonly kind: 'help'; readonly topic?: 'setup' | 'up' }

function usage(message: string): never {
  throw new CliError('CLI_USAGE', EXIT.usage, message, 'see `e2e-col --help`')
}

function loopbackUrl(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    usage(`${flag} must be a URL such as http://127.0.0.1:8080`)
  }
  if (url.protocol !== 'http:') usage(`${flag} must be an http:// URL`)
  return url.origin
}

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535) usage(`${flag} must be a port number (0 picks a free one)`)
  return n
}

function parse(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Record<
      string,
      string | boolean | undefined
    >
  } catch (error) {
    usage((error as Error).message)
  }
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined)

/** `agent token …` as the sidecar's docs command; `--doc X` becomes its argument. */
function agentArgs(rest: readonly string[]): string[] {
  const [sub, ...args] = rest
  if (sub !== 'token') return ['docs', 'agent-token', '--help']
  const out: string[] = ['docs', 'agent-token']
  for (let i = 0; i < args.length; i++) out.push(args[i] === '--doc' ? (args[++i] ?? '--doc') : (args[i] ?? ''))
  return out
}

/** Parses argv (without node and script). @throws CliError CLI_USAGE */
export function parseCommand(argv: readonly string[]): Command {
  const [verb, ...rest] = argv
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') return { kind: 'help' }
  if (verb === 'chat') return { kind: 'chat', args: rest }
  if (verb === 'docs' || verb === 'inspect') return { kind: 'sidecar', args: [verb, ...rest] }
  if (verb === 'sidecar') return { kind: 'sidecar', args: rest }
  // `agent token --doc DOC [--name NAME]` is the sidecar's `docs agent-token DOC [--name NAME]`.
  if (verb === 'agent') return { kind: 'sidecar', args: agentArgs(rest) }
  if (verb === 'setup') {
    if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', topic: 'setup' }
    const v = parse(rest, {
      link: { type: 'boolean' },
      register: { type: 'string' },
      'state-dir': { type: 'string' },
      'daemon-url': { type: 'string' },
      'device-name': { type: 'string' },
      'link-attempts': { type: 'string' },
      'no-page': { type: 'boolean' },
      captcha: { type: 'string' },
      code: { type: 'string' },
      pin: { type: 'string' },
      voice: { type: 'boolean' },
      force: { type: 'boolean' },
    })
    const number = str(v['register'])
    if (v['link'] === true && number !== undefined) usage('choose one: --link or --register +E164')
    if (number !== undefined && !E164.test(number))
      usage('--register needs the number in E.164 form: + then country code and number, no spaces (e.g. +15551234567)')
    const forLink = v['link'] === true
    for (const flag of ['captcha', 'code', 'pin', 'voice'] as const)
      if (forLink && v[flag] !== undefined) usage(`--${flag} belongs to --register, not --link`)
    const attempts = str(v['link-attempts']) === undefined ? 3 : Number(v['link-attempts'])
    if (!Number.isInteger(attempts) || attempts < 1 || attempts > 20) usage('--link-attempts must be 1 to 20')
    const deviceName = str(v['device-name']) ?? `e2e-col on ${hostname()}`
    if (deviceName.length === 0 || deviceName.length > 50) usage('--device-name must be 1 to 50 characters')
    const out: SetupCommand = {
      kind: 'setup',
      mode: forLink ? 'link' : number !== undefined ? 'register' : 'ask',
      deviceName,
      linkAttempts: attempts,
      page: v['no-page'] !== true,
      voice: v['voice'] === true,
      force: v['force'] === true,
      ...(number === undefined ? {} : { number }),
      ...(str(v['state-dir']) === undefined ? {} : { stateDir: str(v['state-dir']) as string }),
      ...(loopbackUrl(str(v['daemon-url']), '--daemon-url') === undefined
        ? {}
        : { daemonUrl: loopbackUrl(str(v['daemon-url']), '--daemon-url') as string }),
      ...(str(v['captcha']) === undefined ? {} : { captcha: str(v['captcha']) as string }),
      ...(str(v['code']) === undefined ? {} : { code: str(v['code']) as string }),
      ...(str(v['pin']) === undefined ? {} : { pin: str(v['pin']) as string }),
    }
    return out
  }
  if (verb === 'up') {
    if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', topic: 'up' }
    const v = parse(rest, {
      'state-dir': { type: 'string' },
      'daemon-url': { type: 'string' },
      listen: { type: 'string' },
      'page-port': { type: 'string' },
      'no-open': { type: 'boolean' },
    })
    const listen = str(v['listen'])
    if (listen !== undefined && !/^(?:\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/.test(listen))
      usage('--listen must be HOST:PORT')
    const daemonUrl = loopbackUrl(str(v['daemon-url']), '--daemon-url')
    return {
      kind: 'up',
      pagePort: port(str(v['page-port']), 5173, '--page-port'),
      open: v['no-open'] !== true,
      ...(str(v['state-dir']) === undefined ? {} : { stateDir: str(v['state-dir']) as string }),
      ...(daemonUrl === undefined ? {} : { daemonUrl }),
      ...(listen === undefined ? {} : { listen }),
    }
  }
  usage(`unknown command "${verb}"`)
}
