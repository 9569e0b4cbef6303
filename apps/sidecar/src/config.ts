/**
 * Configuration: the environment (optionally merged over a JSON file given with `--config`) is
 * parsed once with zod into a frozen typed {@link SidecarConfig}. Nothing else reads `env`.
 * Every error names the variable and what is wrong with it.
 * @see docs/sidecar.md §4
 */
import { readFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { isUuid, MAX_HEADER_BYTES } from '@e2e-col/protocol'
import { z } from 'zod'
import { SidecarError } from './errors.ts'
import { listenProblem } from './listen-scope.ts'
import { e164List, httpOrigin, isLoopbackHost, signalCliAccount, signalCliUrl } from '@e2e-col/signal-cli'

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Real signal-cli turns a text over this many UTF-8 bytes into a long-text attachment. */
export const SIGNAL_LONG_TEXT_THRESHOLD = 2000

export { isLoopbackHost }

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .default('')
  .transform((v) => v === '1' || v === 'true')
const flagOn = z
  .enum(['0', '1', 'true', 'false', ''])
  .default('1')
  .transform((v) => v !== '0' && v !== 'false')
const int = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback)

/** `UUID=base64GroupId` pairs; `what` names the key in messages ("document", "chat"). */
const bindings = (what: string, required: boolean) =>
  z.string().transform((text, ctx) => {
    const pairs = text.split(/[\s,;]+/).filter((p) => p !== '')
    if (required && pairs.length === 0)
      ctx.addIssue({ code: 'custom', message: `at least one ${what}UUID=base64GroupId pair is required` })
    const out: { id: string; groupId: string }[] = []
    for (const pair of pairs) {
      const at = pair.indexOf('=')
      const id = pair.slice(0, Math.max(at, 0)).toLowerCase()
      const groupId = pair.slice(at + 1)
      if (at < 0 || !isUuid(id))
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pair.slice(0, 40))}: key must be a ${what} UUID` })
      else if (groupId === '' || !BASE64.test(groupId))
        ctx.addIssue({ code: 'custom', message: `${what} ${id}: group id is not base64` })
      else if (out.some((d) => d.id === id)) ctx.addIssue({ code: 'custom', message: `${what} ${id} is mapped twice` })
      else if (out.some((d) => d.groupId === groupId))
        ctx.addIssue({ code: 'custom', message: `group ${groupId} is used by two ${what}s` })
      else out.push({ id, groupId })
    }
    return out
  })
const Documents = bindings('document', false).transform((list) =>
  list.map(({ id, groupId }) => ({ docId: id, groupId })),
)
const Chats = bindings('chat', false).transform((list) => list.map(({ id, groupId }) => ({ chatId: id, groupId })))

const Env = z
  .object({
    SIGNAL_CLI_URL: signalCliUrl,
    SIGNAL_CLI_ACCOUNT: signalCliAccount,
    E2E_COL_ALLOW_REMOTE_DAEMON: flag,
    E2E_COL_DOCUMENTS: z.string().default('').pipe(Documents),
    E2E_COL_SETUP: z.enum(['linked-device', 'dedicated-number']).default('linked-device'),
    E2E_COL_CHATS: z.string().default('').pipe(Chats),
    E2E_COL_CHAT_OPERATORS: e164List,
    E2E_COL_CHAT_LOOP_ACCOUNT: signalCliAccount,
    E2E_COL_CHAT_BROWSER_OPERATORS: flag,
    E2E_COL_SIGNAL_BODY_MAX_BYTES: z.coerce
      .number({ error: 'required: the largest body in UTF-8 bytes' })
      .int()
      .min(256)
      .max(1_000_000),
    E2E_COL_ALLOW_LONG_BODIES: flag,
    E2E_COL_COMPRESS: flagOn,
    E2E_COL_ANNOUNCE_AUTHORS: flagOn,
    E2E_COL_DERIVED_CLIENT_IDS: flagOn,
    E2E_COL_CAPABILITIES: z
      .string()
      .default('deflate,attachments')
      .transform((text, ctx) => {
        const list = text.split(/[\s,]+/).filter((c) => c !== '')
        if (list.length === 1 && list[0] === 'none') return []
        for (const c of list)
          if (c !== 'deflate' && c !== 'attachments')
            ctx.addIssue({
              code: 'custom',
              message: `unknown capability ${JSON.stringify(c.slice(0, 20))}: use deflate, attachments, or none`,
            })
        return [...new Set(list)] as ('deflate' | 'attachments')[]
      }),
    E2E_COL_ATTACHMENT_MIN_BYTES: int(1, 64 * 1024 * 1024, 4096),
    E2E_COL_ATTACHMENT_FETCH_TIMEOUT_MS: int(100, 600_000, 30_000),
    E2E_COL_ATTACHMENT_MAX_FRAME_BYTES: int(1024, 16 * 1024 * 1024, 16 * 1024 * 1024),
    E2E_COL_ATTACHMENT_RESTORE_MS: int(100, 86_400_000, 600_000),
    E2E_COL_MEMBERS_REFRESH_MS: int(1000, 86_400_000, 60_000),
    E2E_COL_HISTORY_QUIET_MS: int(100, 600_000, 3000),
    E2E_COL_HISTORY_MAX_SPELL_MS: int(1000, 3_600_000, 60_000),
    E2E_COL_HISTORY_ABSENCE_MS: int(1000, 604_800_000, 600_000),
    E2E_COL_HISTORY_ALL_DAYS: int(0, 3650, 7),
    E2E_COL_HISTORY_DAILY_DAYS: int(0, 36_500, 90),
    E2E_COL_HISTORY_MAX_BYTES: int(65_536, 1_099_511_627_776, 33_554_432),
    E2E_COL_LISTEN: z
      .string()
      .default('127.0.0.1:7600')
      .transform((text, ctx) => {
        const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text)
        const port = Number(m?.[3])
        if (!m || port > 65535) {
          ctx.addIssue({ code: 'custom', message: 'must be HOST:PORT (IPv6 as [::1]:PORT)' })
          return z.NEVER
        }
        return { host: m[1] ?? m[2] ?? '127.0.0.1', port }
      }),
    E2E_COL_ALLOW_NON_LOOPBACK: flag,
    E2E_COL_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((text, ctx) =>
        text
          .split(/[\s,]+/)
          .filter((o) => o !== '')
          .map((o) => {
            const url = httpOrigin(o, ctx)
            return url instanceof URL ? url.origin : ''
          }),
      ),
    E2E_COL_MAX_FRAME_BYTES: int(1024, 64 * 1024 * 1024, 2 * 1024 * 1024),
    E2E_COL_FRAMES_PER_SECOND: int(1, 100_000, 200),
    E2E_COL_FRAME_BURST: int(1, 100_000, 400),
    E2E_COL_ABUSE_LIMIT: int(1, 1000, 3),
    E2E_COL_MAX_CONNECTIONS_PER_DOC: int(1, 10_000, 32),
    E2E_COL_MAX_QUEUE_BYTES: int(1024, 1024 * 1024 * 1024, 32 * 1024 * 1024),
    E2E_COL_SENDS_PER_SECOND: z.coerce.number().positive().max(1000).default(1),
    E2E_COL_SEND_BURST: int(1, 10_000, 5),
    E2E_COL_SEND_ATTEMPTS: int(1, 100, 5),
    E2E_COL_RETRY_BASE_MS: int(1, 600_000, 500),
    E2E_COL_RETRY_MAX_MS: int(1, 3_600_000, 30_000),
    E2E_COL_OFFLINE_PROBE_MAX_MS: int(10, 3_600_000, 60_000),
    E2E_COL_RPC_TIMEOUT_MS: int(100, 600_000, 30_000),
    E2E_COL_RECONNECT_BASE_MS: int(1, 600_000, 500),
    E2E_COL_RECONNECT_MAX_MS: int(1, 3_600_000, 60_000),
    E2E_COL_STREAM_IDLE_MS: int(1000, 3_600_000, 60_000),
    E2E_COL_REASSEMBLY_MAX_MESSAGES: int(1, 100_000, 64),
    // Unset: follows the frame bound (see loadConfig).
    E2E_COL_REASSEMBLY_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .optional(),
    E2E_COL_REASSEMBLY_TTL_MS: int(1000, 86_400_000, 600_000),
    E2E_COL_DEDUP_MAX_ENTRIES: int(16, 10_000_000, 100_000),
    E2E_COL_DEDUP_TTL_MS: int(1000, 30 * 86_400_000, 86_400_000),
    E2E_COL_SHUTDOWN_FLUSH_MS: int(0, 600_000, 5_000),
    E2E_COL_DATA_DIR: z
      .string()
      .refine((p) => isAbsolute(p), 'must be an absolute path')
      .optional(),
    E2E_COL_SENT_IDS_TTL_MS: int(60_000, 365 * 86_400_000, 30 * 86_400_000),
    E2E_COL_SENT_IDS_MAX: int(1000, 100_000_000, 250_000),
    E2E_COL_SYNC_ON_START: flagOn,
    E2E_COL_SYNC_DELAY_MIN_MS: int(0, 60_000, 20),
    E2E_COL_SYNC_DELAY_MAX_MS: int(0, 60_000, 300),
    E2E_COL_HEALTH_INTERVAL_MS: int(1000, 86_400_000, 300_000),
    // Lazy replicas (decisions/0040): a quiet document leaves memory after this; 0 keeps every loaded one.
    E2E_COL_EVICT_AFTER_MS: int(0, 86_400_000, 60_000),
    E2E_COL_MAX_LOADED_DOCS: int(1, 100_000, 64),
    E2E_COL_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (
      env.SIGNAL_CLI_URL instanceof URL &&
      !env.E2E_COL_ALLOW_REMOTE_DAEMON &&
      !isLoopbackHost(env.SIGNAL_CLI_URL.hostname)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['SIGNAL_CLI_URL'],
        message:
          'non-loopback daemon refused: the daemon has no authentication and traffic to it is plain text; set E2E_COL_ALLOW_REMOTE_DAEMON=1 only on a trusted network',
      })
    }
    const listen =
      typeof env.E2E_COL_LISTEN === 'object'
        ? listenProblem(env.E2E_COL_LISTEN.host, env.E2E_COL_ALLOW_NON_LOOPBACK)
        : undefined
    if (listen !== undefined) ctx.addIssue({ code: 'custom', path: ['E2E_COL_LISTEN'], message: listen })
    if (env.E2E_COL_SIGNAL_BODY_MAX_BYTES > SIGNAL_LONG_TEXT_THRESHOLD && !env.E2E_COL_ALLOW_LONG_BODIES) {
      ctx.addIssue({
        code: 'custom',
        path: ['E2E_COL_SIGNAL_BODY_MAX_BYTES'],
        message: `above ${SIGNAL_LONG_TEXT_THRESHOLD}: real signal-cli turns longer texts into long-text attachments; set E2E_COL_ALLOW_LONG_BODIES=1 to insist`,
      })
    }
    for (const c of env.E2E_COL_CHATS)
      if (
        env.E2E_COL_DOCUMENTS.some(
          (d: { docId: string; groupId: string }) => d.docId === c.chatId || d.groupId === c.groupId,
        )
      )
        ctx.addIssue({
          code: 'custom',
          path: ['E2E_COL_CHATS'],
          message: `chat ${c.chatId} reuses a document's id or group`,
        })
    if (env.E2E_COL_RETRY_MAX_MS < env.E2E_COL_RETRY_BASE_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['E2E_COL_RETRY_MAX_MS'],
        message: 'must be at least E2E_COL_RETRY_BASE_MS',
      })
    if (env.E2E_COL_SYNC_DELAY_MAX_MS < env.E2E_COL_SYNC_DELAY_MIN_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['E2E_COL_SYNC_DELAY_MAX_MS'],
        message: 'must be at least E2E_COL_SYNC_DELAY_MIN_MS',
      })
    if (env.E2E_COL_RECONNECT_MAX_MS < env.E2E_COL_RECONNECT_BASE_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['E2E_COL_RECONNECT_MAX_MS'],
        message: 'must be at least E2E_COL_RECONNECT_BASE_MS',
      })
  })

/** Every variable the sidecar reads, for `--help` and for the JSON config file's keys. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(Env.shape)

type ParsedEnv = z.infer<typeof Env>

/** Which versions history keeps (history/retention.ts). */
export interface RetentionPolicy {
  readonly allDays: number
  readonly dailyDays: number
  readonly maxBytes: number
}

/** When versions are recorded and which are kept (history/doc-history.ts). */
export interface HistoryPolicy {
  /** A spell of edits is a version once nothing changed for this long. */
  readonly quietMs: number
  /** A spell that never goes quiet is a version after this long. */
  readonly maxSpellMs: number
  /** A member unheard for this long is back from an absence (its change is a catch-up). */
  readonly absenceMs: number
  /** Changes (what revert reads) are kept this many days. */
  readonly changeDays: number
  readonly retention: RetentionPolicy
}

/** The sidecar's typed, deeply frozen configuration. */
export interface SidecarConfig {
  readonly signal: {
    readonly url: string
    readonly account: string | undefined
    readonly rpcTimeoutMs: number
    readonly streamIdleMs: number
  }
  /** Documents fixed by configuration; more are created and accepted at run time (library/). */
  readonly documents: readonly { readonly docId: string; readonly groupId: string }[]
  /**
   * `linked-device`: the account is also a person's phone, so new document groups get a
   * disappearing-messages timer; `dedicated-number`: an account of its own (phones see nothing).
   */
  readonly setup: 'linked-device' | 'dedicated-number'
  /** Chat groups browsers reach at `/v1/chats/<chatId>` (docs/sidecar.md §4.9). */
  readonly chats: {
    readonly bindings: readonly { readonly chatId: string; readonly groupId: string }[]
    readonly operators: readonly string[]
    /** The account the chat loop posts from (lifted into chat-reply); this sidecar's by default. */
    readonly loopAccount: string | undefined
    /** Loopback-origin browsers may send chat-prompt / chat-control. */
    readonly browserOperators: boolean
  }
  readonly maxBodyBytes: number
  /** E2E_COL_ALLOW_LONG_BODIES: the boundary may exceed Signal's long-text threshold. */
  readonly allowLongBodies: boolean
  readonly listen: { readonly host: string; readonly port: number }
  readonly allowedOrigins: readonly string[]
  readonly browser: {
    readonly maxFrameBytes: number
    readonly framesPerSecond: number
    readonly frameBurst: number
    readonly abuseLimit: number
    readonly maxConnectionsPerDoc: number
  }
  /**
   * What this sidecar reads and announces to its groups (contract §4.10): `deflate`, `attachments`.
   * Empty (`none`) behaves as a sidecar from before capabilities: it announces nothing and drops
   * deflated and attachment envelopes.
   */
  readonly capabilities: readonly ('deflate' | 'attachments')[]
  /**
   * Whether this sidecar announces its pages' Yjs client ids (`health` record `authors`,
   * decisions/0023). Off, members still bind them from its updates; `npm run bench` measures the cost.
   */
  readonly announceAuthors: boolean
  /**
   * Whether the delivery notes tell this sidecar's pages their account's author tag, so they write
   * under derived client ids (decisions/0023). Off, pages keep Yjs's own ids (unverified to members);
   * it exists so `npm run bench` can measure what derived ids cost.
   */
  readonly derivedClientIds: boolean
  /** Frames (after compression) of at least `minBytes` go as one attachment when every member reads them. */
  readonly attachments: {
    readonly minBytes: number
    readonly fetchTimeoutMs: number
    /**
     * The largest payload a member's attachment may carry inflated, and only for a whole
     * document's answer (`sync-response`, `snapshot`); its other kinds, text bodies and browser
     * frames keep `browser.maxFrameBytes`. At most 16 MiB: what a page decodes.
     */
    readonly maxFrameBytes: number
    /** How long a document that withdrew attachments (references not found) waits to announce them again. */
    readonly restoreAfterMs: number
  }
  /** How often each group's member list is read again. */
  readonly membersRefreshMs: number
  /** `compress`: deflate Yjs payloads of envelopes that need more than one body (contract §4.2). */
  readonly send: {
    readonly compress: boolean
    readonly maxQueueBytes: number
    readonly sendsPerSecond: number
    readonly burst: number
    readonly attempts: number
    readonly retryBaseMs: number
    readonly retryMaxMs: number
    readonly offlineProbeMaxMs: number
  }
  readonly events: { readonly reconnectBaseMs: number; readonly reconnectMaxMs: number }
  readonly reassembly: { readonly maxPartialMessages: number; readonly maxPartialBytes: number; readonly ttlMs: number }
  readonly dedup: { readonly maxEntries: number; readonly ttlMs: number }
  /** `healthIntervalMs`: a changing replica announces its state vector at most this often (§8.4). */
  readonly replica: {
    readonly dataDir: string
    readonly sentIdsTtlMs: number
    /** Sent ids kept at most (the newest), besides the age bound. */
    readonly sentIdsMax: number
    readonly syncOnStart: boolean
    readonly syncDelayMs: { readonly min: number; readonly max: number }
    readonly healthIntervalMs: number
    /** A document with no page, nothing to send and no change for this long leaves memory (0: never). */
    readonly evictAfterMs: number
    /** Quiet documents beyond this many in memory leave it, least recently used first. */
    readonly maxLoaded: number
  }
  /** When versions are recorded and which are kept (history/doc-history.ts, retention.ts). */
  readonly history: HistoryPolicy
  readonly shutdownFlushMs: number
  readonly logLevel: ParsedEnv['E2E_COL_LOG_LEVEL']
}

/**
 * The default reassembly budget of one source: two of the largest frames a sidecar accepts (one
 * completing while the next starts), header included. Anything larger could never be delivered.
 */
export const reassemblyBudget = (maxFrameBytes: number): number => 2 * (maxFrameBytes + MAX_HEADER_BYTES)

/**
 * The longest body the receive path decodes: the configured boundary, and at least Signal's
 * long-text threshold unless long bodies are allowed (a member whose boundary is larger than ours
 * but within the threshold is still read). Longer bodies are dropped before decoding (§4.6).
 */
export function receiveBodyBound(config: Pick<SidecarConfig, 'maxBodyBytes' | 'allowLongBodies'>): number {
  return config.allowLongBodies ? config.maxBodyBytes : Math.max(config.maxBodyBytes, SIGNAL_LONG_TEXT_THRESHOLD)
}

/**
 * The replica's folder when E2E_COL_DATA_DIR is unset: `$XDG_STATE_HOME/e2e-col`, else
 * `$HOME/.local/state/e2e-col` (the XDG base directory default for state).
 * @throws SidecarError `CONFIG_INVALID` when neither is an absolute path
 */
export function defaultDataDir(env: Record<string, string | undefined>): string {
  const xdg = env['XDG_STATE_HOME']
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'e2e-col')
  const home = env['HOME']
  if (home !== undefined && isAbsolute(home)) return join(home, '.local', 'state', 'e2e-col')
  throw new SidecarError(
    'CONFIG_INVALID',
    'invalid configuration:\n✖ E2E_COL_DATA_DIR: required when neither XDG_STATE_HOME nor HOME is an absolute path',
  )
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

function readConfigFile(path: string): Record<string, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new SidecarError(
      'CONFIG_INVALID',
      `--config ${path}: cannot read a JSON object (${(error as Error).message})`,
    )
  }
  const File = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  const r = File.safeParse(parsed)
  if (!r.success)
    throw new SidecarError(
      'CONFIG_INVALID',
      `--config ${path}: must be a JSON object of VARIABLE: value\n${z.prettifyError(r.error)}`,
    )
  const unknown = Object.keys(r.data).filter((k) => !CONFIG_VARIABLES.includes(k))
  if (unknown.length > 0)
    throw new SidecarError('CONFIG_INVALID', `--config ${path}: unknown setting(s) ${unknown.join(', ')}`)
  return Object.fromEntries(Object.entries(r.data).map(([k, v]) => [k, String(v)]))
}

/**
 * Parses the sidecar configuration. Environment variables win over the JSON file's values.
 * @throws SidecarError `CONFIG_INVALID`, whose message names every offending variable.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  options: { configFile?: string } = {},
): SidecarConfig {
  const fromFile = options.configFile === undefined ? {} : readConfigFile(options.configFile)
  const input: Record<string, string> = { ...fromFile }
  for (const key of CONFIG_VARIABLES) {
    const v = env[key]
    if (v !== undefined) input[key] = v
  }
  const r = Env.safeParse(input)
  if (!r.success) throw new SidecarError('CONFIG_INVALID', `invalid configuration:\n${z.prettifyError(r.error)}`)
  const e = r.data
  return deepFreeze({
    signal: {
      url: (e.SIGNAL_CLI_URL as URL).origin,
      account: e.SIGNAL_CLI_ACCOUNT,
      rpcTimeoutMs: e.E2E_COL_RPC_TIMEOUT_MS,
      streamIdleMs: e.E2E_COL_STREAM_IDLE_MS,
    },
    documents: e.E2E_COL_DOCUMENTS,
    setup: e.E2E_COL_SETUP,
    chats: {
      bindings: e.E2E_COL_CHATS,
      operators: e.E2E_COL_CHAT_OPERATORS,
      loopAccount: e.E2E_COL_CHAT_LOOP_ACCOUNT ?? e.SIGNAL_CLI_ACCOUNT,
      browserOperators: e.E2E_COL_CHAT_BROWSER_OPERATORS,
    },
    maxBodyBytes: e.E2E_COL_SIGNAL_BODY_MAX_BYTES,
    allowLongBodies: e.E2E_COL_ALLOW_LONG_BODIES,
    capabilities: e.E2E_COL_CAPABILITIES,
    announceAuthors: e.E2E_COL_ANNOUNCE_AUTHORS,
    derivedClientIds: e.E2E_COL_DERIVED_CLIENT_IDS,
    attachments: {
      minBytes: e.E2E_COL_ATTACHMENT_MIN_BYTES,
      fetchTimeoutMs: e.E2E_COL_ATTACHMENT_FETCH_TIMEOUT_MS,
      maxFrameBytes: Math.max(e.E2E_COL_ATTACHMENT_MAX_FRAME_BYTES, e.E2E_COL_MAX_FRAME_BYTES),
      restoreAfterMs: e.E2E_COL_ATTACHMENT_RESTORE_MS,
    },
    membersRefreshMs: e.E2E_COL_MEMBERS_REFRESH_MS,
    listen: e.E2E_COL_LISTEN,
    allowedOrigins: e.E2E_COL_ALLOWED_ORIGINS,
    browser: {
      maxFrameBytes: e.E2E_COL_MAX_FRAME_BYTES,
      framesPerSecond: e.E2E_COL_FRAMES_PER_SECOND,
      frameBurst: e.E2E_COL_FRAME_BURST,
      abuseLimit: e.E2E_COL_ABUSE_LIMIT,
      maxConnectionsPerDoc: e.E2E_COL_MAX_CONNECTIONS_PER_DOC,
    },
    send: {
      compress: e.E2E_COL_COMPRESS,
      maxQueueBytes: e.E2E_COL_MAX_QUEUE_BYTES,
      sendsPerSecond: e.E2E_COL_SENDS_PER_SECOND,
      burst: e.E2E_COL_SEND_BURST,
      attempts: e.E2E_COL_SEND_ATTEMPTS,
      retryBaseMs: e.E2E_COL_RETRY_BASE_MS,
      retryMaxMs: e.E2E_COL_RETRY_MAX_MS,
      offlineProbeMaxMs: e.E2E_COL_OFFLINE_PROBE_MAX_MS,
    },
    events: { reconnectBaseMs: e.E2E_COL_RECONNECT_BASE_MS, reconnectMaxMs: e.E2E_COL_RECONNECT_MAX_MS },
    reassembly: {
      maxPartialMessages: e.E2E_COL_REASSEMBLY_MAX_MESSAGES,
      maxPartialBytes: e.E2E_COL_REASSEMBLY_MAX_BYTES ?? reassemblyBudget(e.E2E_COL_MAX_FRAME_BYTES),
      ttlMs: e.E2E_COL_REASSEMBLY_TTL_MS,
    },
    dedup: { maxEntries: e.E2E_COL_DEDUP_MAX_ENTRIES, ttlMs: e.E2E_COL_DEDUP_TTL_MS },
    replica: {
      dataDir: e.E2E_COL_DATA_DIR ?? defaultDataDir(env),
      sentIdsTtlMs: e.E2E_COL_SENT_IDS_TTL_MS,
      sentIdsMax: e.E2E_COL_SENT_IDS_MAX,
      syncOnStart: e.E2E_COL_SYNC_ON_START,
      syncDelayMs: { min: e.E2E_COL_SYNC_DELAY_MIN_MS, max: e.E2E_COL_SYNC_DELAY_MAX_MS },
      healthIntervalMs: e.E2E_COL_HEALTH_INTERVAL_MS,
      evictAfterMs: e.E2E_COL_EVICT_AFTER_MS,
      maxLoaded: e.E2E_COL_MAX_LOADED_DOCS,
    },
    history: {
      quietMs: e.E2E_COL_HISTORY_QUIET_MS,
      maxSpellMs: e.E2E_COL_HISTORY_MAX_SPELL_MS,
      absenceMs: e.E2E_COL_HISTORY_ABSENCE_MS,
      // Changes (what revert reads) are kept as long as every version is.
      changeDays: e.E2E_COL_HISTORY_ALL_DAYS,
      retention: {
        allDays: e.E2E_COL_HISTORY_ALL_DAYS,
        dailyDays: Math.max(e.E2E_COL_HISTORY_ALL_DAYS, e.E2E_COL_HISTORY_DAILY_DAYS),
        maxBytes: e.E2E_COL_HISTORY_MAX_BYTES,
      },
    },
    shutdownFlushMs: e.E2E_COL_SHUTDOWN_FLUSH_MS,
    logLevel: e.E2E_COL_LOG_LEVEL,
  })
}
