/**
 * Command line and JSON config file of the `toy-signal` binary, validated with zod.
 *
 *   toy-signal [--http HOST:PORT] [--account +E164]... [--group NAME:+E164,+E164]...
 *              [--unregistered +E164]... [--single-account +E164] [--config FILE] [--faults]
 *              [--keep-alive-ms N] [--signal-pace] [--max-attachment-bytes N]
 *              [--link-timeout-ms N] [--offline] [--pending-invites]
 *              [--signal-cli-version X.Y.Z] [--groups-file FILE] [--verbose]
 *
 * `--http` defaults to 127.0.0.1:8080 and is split at the last `:` like signal-cli's; port 0 picks
 * a free one. Flags add to what the config file gives.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { isPlayableVersion } from './daemon-version.ts'
import { ToySignalError } from './errors.ts'
import type { ToySignalOptions } from './toy-signal.ts'

const Number164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number')
const ConfigFile = z.strictObject({
  http: z.string().optional(),
  accounts: z.array(Number164).optional(),
  singleAccount: Number164.optional(),
  unregistered: z.array(Number164).optional(),
  groups: z
    .array(z.strictObject({ name: z.string().min(1), members: z.array(Number164), id: z.string().optional() }))
    .optional(),
  faults: z.boolean().optional(),
  pendingInvites: z.boolean().optional(),
  names: z.record(Number164, z.string().min(1).max(64)).optional(),
  keepAliveMs: z.number().int().min(1).optional(),
  maxQueuedPerAccount: z.number().int().min(1).optional(),
  signalPace: z.boolean().optional(),
  maxAttachmentBytes: z.number().int().min(1).optional(),
  linkTimeoutMs: z.number().int().min(1).optional(),
  offline: z.boolean().optional(),
  signalCliVersion: z.string().refine(isPlayableVersion, 'must be MAJOR.MINOR.PATCH').optional(),
})

/** What the binary runs with. */
export interface CliOptions {
  toy: ToySignalOptions
  verbose: boolean
}

function fail(message: string, cause?: unknown): never {
  throw new ToySignalError('TOY_CONFIG_INVALID', message, cause === undefined ? undefined : { cause })
}

function parseHttp(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':')
  const host = (at === -1 ? value : value.slice(0, at)).replace(/^\[|\]$/g, '')
  const port = at === -1 ? 8080 : Number(value.slice(at + 1))
  if (host === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--http must be HOST:PORT, got "${value}"`)
  return { host, port }
}

function parseGroup(value: string): { name: string; members: string[] } {
  const at = value.lastIndexOf(':')
  if (at <= 0) fail('--group must be NAME:+E164,+E164,...')
  const members = value
    .slice(at + 1)
    .split(',')
    .filter((m) => m !== '')
  const checked = z.array(Number164).safeParse(members)
  if (!checked.success) fail('--group members must be E.164 numbers')
  return { name: value.slice(0, at), members: checked.data }
}

function readConfig(path: string): z.infer<typeof ConfigFile> {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    fail(`cannot read config file ${path}: ${error instanceof Error ? error.message : String(error)}`, error)
  }
  const parsed = ConfigFile.safeParse(json)
  if (!parsed.success) fail(`invalid config file ${path}:\n${z.prettifyError(parsed.error)}`)
  return parsed.data
}

/** Parses argv (without node and script). @throws ToySignalError `TOY_CONFIG_INVALID` */
export function parseCliOptions(argv: readonly string[]): CliOptions {
  let values
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        http: { type: 'string' },
        account: { type: 'string', multiple: true },
        group: { type: 'string', multiple: true },
        unregistered: { type: 'string', multiple: true },
        'single-account': { type: 'string' },
        config: { type: 'string' },
        'groups-file': { type: 'string' },
        faults: { type: 'boolean' },
        'pending-invites': { type: 'boolean' },
        'keep-alive-ms': { type: 'string' },
        'signal-pace': { type: 'boolean' },
        'max-attachment-bytes': { type: 'string' },
        'link-timeout-ms': { type: 'string' },
        offline: { type: 'boolean' },
        'signal-cli-version': { type: 'string' },
        verbose: { type: 'boolean' },
      },
    }))
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error), error)
  }
  const file = values.config === undefined ? {} : readConfig(values.config)
  const accounts = [...(file.accounts ?? []), ...(values.account ?? [])]
  const bad = accounts.find((a) => !Number164.safeParse(a).success)
  if (bad !== undefined) fail('--account must be an E.164 number')
  const unregistered = [...(file.unregistered ?? []), ...(values.unregistered ?? [])]
  if (unregistered.some((n) => !Number164.safeParse(n).success)) fail('--unregistered must be an E.164 number')
  const single = values['single-account'] ?? file.singleAccount
  if (single !== undefined && !Number164.safeParse(single).success) fail('--single-account must be an E.164 number')
  const keepAlive = values['keep-alive-ms'] === undefined ? file.keepAliveMs : Number(values['keep-alive-ms'])
  if (keepAlive !== undefined && (!Number.isInteger(keepAlive) || keepAlive < 1))
    fail('--keep-alive-ms must be a positive integer')
  const linkTimeout = values['link-timeout-ms'] === undefined ? file.linkTimeoutMs : Number(values['link-timeout-ms'])
  if (linkTimeout !== undefined && (!Number.isInteger(linkTimeout) || linkTimeout < 1))
    fail('--link-timeout-ms must be a positive integer')
  const { host, port } = parseHttp(values.http ?? file.http ?? '127.0.0.1:8080')
  const groups = [
    ...(file.groups ?? []).map((g) => (g.id === undefined ? { name: g.name, members: g.members } : g)),
    ...(values.group ?? []).map(parseGroup),
  ]
  const toy: ToySignalOptions = { host, port, accounts, groups, faults: values.faults === true || file.faults === true }
  if (single !== undefined) toy.singleAccount = single
  if (unregistered.length > 0) toy.unregistered = unregistered
  if (keepAlive !== undefined) toy.keepAliveMs = keepAlive
  if (linkTimeout !== undefined) toy.linkTimeoutMs = linkTimeout
  if (values.offline === true || file.offline === true) toy.offline = true
  if (file.maxQueuedPerAccount !== undefined) toy.maxQueuedPerAccount = file.maxQueuedPerAccount
  if (values['signal-pace'] === true || file.signalPace === true) toy.signalPace = true
  const maxAttachment =
    values['max-attachment-bytes'] === undefined ? file.maxAttachmentBytes : Number(values['max-attachment-bytes'])
  if (maxAttachment !== undefined && (!Number.isSafeInteger(maxAttachment) || maxAttachment < 1))
    fail('--max-attachment-bytes must be a positive integer')
  if (maxAttachment !== undefined) toy.maxAttachmentBytes = maxAttachment
  if (values['pending-invites'] === true || file.pendingInvites === true) toy.pendingInvites = true
  if (file.names !== undefined) toy.names = file.names
  if (values['groups-file'] !== undefined) toy.groupsFile = values['groups-file']
  const version = values['signal-cli-version'] ?? file.signalCliVersion
  if (version !== undefined && !isPlayableVersion(version))
    fail('--signal-cli-version must be MAJOR.MINOR.PATCH, e.g. 0.13.19')
  if (version !== undefined) toy.signalCliVersion = version
  return { toy, verbose: values.verbose === true }
}
