/**
 * Command-line parsing for `e2e-col-sidecar`: `--help` and `--config FILE`; everything else is
 * configured through the environment.
 */
import { isUuid } from '@e2e-col/protocol'
import { CONFIG_VARIABLES } from '../config.ts'
import { parseDocsArgs, type DocsCommand } from './docs-cli.ts'

export type CliCommand =
  | { kind: 'help'; text?: string }
  | { kind: 'docs'; command: DocsCommand }
  | { kind: 'run'; configFile?: string }
  | { kind: 'inspect'; docId: string; dataDir?: string; json: boolean }
  | { kind: 'usage-error'; message: string }

export const INSPECT_HELP = `Usage: e2e-col-sidecar inspect --doc UUID [--data-dir DIR] [--json]

Reads one document's replica from the store, read-only (safe while the sidecar runs): the stored
size, the encoded state size, a state vector summary and the number of remembered sent message
ids. DIR defaults to E2E_COL_DATA_DIR; without it, the first store holding the document of
e2e-col up's (<state>/sidecar), npm start's (.e2e-col-tmp/demo/alice, then bob, from the working
folder up) and the sidecar's default; the others holding it are named.

Exit codes: 0 done, 2 usage, 9 the store cannot be read, 10 no store holds the document.
`

function parseInspect(argv: readonly string[]): CliCommand {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help', text: INSPECT_HELP }
  let docId: string | undefined
  let dataDir: string | undefined
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--json') json = true
    else if (a === '--doc' || a === '--data-dir') {
      const next = argv[++i]
      if (next === undefined) return { kind: 'usage-error', message: `${a} needs a value` }
      if (a === '--doc') docId = next.toLowerCase()
      else dataDir = next
    } else return { kind: 'usage-error', message: `inspect: unknown argument ${JSON.stringify(a)} (see --help)` }
  }
  if (!isUuid(docId)) return { kind: 'usage-error', message: 'inspect needs --doc <document UUID>' }
  return dataDir === undefined ? { kind: 'inspect', docId, json } : { kind: 'inspect', docId, dataDir, json }
}

export const HELP = `e2e-col-sidecar: carries e2e-col documents between browsers (WebSocket) and a signal-cli daemon.

Usage: e2e-col-sidecar [--config FILE.json] [--help]
       e2e-col-sidecar inspect --doc UUID [--data-dir DIR] [--json]
       e2e-col-sidecar docs list|new|share|unshare|role|rename|leave|accept|decline|history|restore ... (docs --help)

Settings come from the environment; --config reads a JSON object of the same names (the
environment wins). Required: E2E_COL_SIGNAL_BODY_MAX_BYTES. Documents are made and shared from
the home page or with \`docs\`; E2E_COL_DOCUMENTS fixes some in addition.

  SIGNAL_CLI_URL                  daemon origin (default http://127.0.0.1:8080), loopback only unless
  E2E_COL_ALLOW_REMOTE_DAEMON=1   (the daemon has no authentication: only on a trusted network)
  SIGNAL_CLI_ACCOUNT              E.164 account; may be omitted when the daemon serves one account
  E2E_COL_DOCUMENTS               optional fixed documents: docUUID=base64GroupId pairs, comma separated
  E2E_COL_SETUP                   linked-device (default: new document groups get a 1-day disappearing-
                                  messages timer) or dedicated-number (the account is the sidecar's own)
  E2E_COL_CHATS                   chatUUID=base64GroupId pairs: chat groups browsers reach at /v1/chats/<chatUUID>
                                  (a loop attached with e2e-col chat --sidecar binds its own chat too)
  E2E_COL_CHAT_OPERATORS          +E164 numbers whose text in a chat group is shown as a prompt
  E2E_COL_CHAT_LOOP_ACCOUNT       the loop's account, shown as replies (default SIGNAL_CLI_ACCOUNT)
  E2E_COL_CHAT_BROWSER_OPERATORS=1  loopback pages may send chat-prompt / chat-control (default: watch only)
  E2E_COL_SIGNAL_BODY_MAX_BYTES   largest body (prefix + base64) in UTF-8 bytes; no default: real
                                  signal-cli turns texts over 2000 bytes into long-text attachments.
  E2E_COL_ALLOW_LONG_BODIES=1     accept a boundary above 2000
  E2E_COL_LISTEN                  HOST:PORT of the WebSocket listener (default 127.0.0.1:7600)
  E2E_COL_ALLOW_NON_LOOPBACK=1    allow a non-loopback E2E_COL_LISTEN (warns; peers are checked)
  E2E_COL_ALLOWED_ORIGINS         page origins allowed to connect (empty: loopback pages only)
  E2E_COL_MAX_FRAME_BYTES         largest browser frame (default 2 MiB; larger closes with 1009)
  E2E_COL_FRAMES_PER_SECOND, E2E_COL_FRAME_BURST   per-connection rate bound (200/s, burst 400)
  E2E_COL_ABUSE_LIMIT             refused frames before a connection is closed (3)
  E2E_COL_MAX_CONNECTIONS_PER_DOC (32)     E2E_COL_MAX_QUEUE_BYTES  per-group send queue (32 MiB)
  E2E_COL_SENDS_PER_SECOND, E2E_COL_SEND_BURST     per-group pacing (1/s, burst 5)
  E2E_COL_SEND_ATTEMPTS, E2E_COL_RETRY_BASE_MS, E2E_COL_RETRY_MAX_MS   send retries (5, 500, 30000)
  E2E_COL_OFFLINE_PROBE_MAX_MS    while Signal is unreachable, longest wait between probes (60000)
  E2E_COL_RPC_TIMEOUT_MS (30000)  E2E_COL_STREAM_IDLE_MS (60000: a silent events stream is dead)
  E2E_COL_RECONNECT_BASE_MS, E2E_COL_RECONNECT_MAX_MS  events-stream reconnect (500, 60000)
  E2E_COL_REASSEMBLY_MAX_MESSAGES, E2E_COL_REASSEMBLY_MAX_BYTES, E2E_COL_REASSEMBLY_TTL_MS
                                  per member (64; 2 x (max frame + 66); 10 min)
  E2E_COL_DEDUP_MAX_ENTRIES, E2E_COL_DEDUP_TTL_MS  per member (100000; 1 day)
  E2E_COL_MEMBERS_REFRESH_MS      how often group members are listed again (60000)
  E2E_COL_SHUTDOWN_FLUSH_MS (5000)  E2E_COL_LOG_LEVEL (info)
  E2E_COL_DATA_DIR                folder of the replica store (default $XDG_STATE_HOME/e2e-col, else
                                  ~/.local/state/e2e-col; created 0700). Back it up with the sidecar stopped.
  E2E_COL_SENT_IDS_TTL_MS         how long sent message ids are remembered (30 days)
  E2E_COL_SENT_IDS_MAX            sent message ids kept at most, the newest (250000)
  E2E_COL_SYNC_ON_START           ask the group for what it missed at start (1)
  E2E_COL_SYNC_DELAY_MIN_MS, E2E_COL_SYNC_DELAY_MAX_MS  random delay before answering the group (20, 300)
  E2E_COL_HEALTH_INTERVAL_MS      a changing replica announces its state vector at most this often (300000)

Inspect a store (read-only, safe while the sidecar runs):
  e2e-col-sidecar inspect --doc UUID [--data-dir DIR] [--json]
  prints the stored size, the encoded state size, a state vector summary and the number of
  remembered sent message ids. DIR defaults to E2E_COL_DATA_DIR, else the store of e2e-col up or
  npm start that holds the document (inspect --help); 10 when no store holds it.

Exit codes: 0 clean shutdown, 1 unexpected, 2 configuration, 3 daemon check, 4 version probe,
5 account, 6 group membership, 7 events stream, 8 listen, 9 replica store (cannot be opened or
written; also at runtime: the sidecar stops rather than run without its store).

All settings: ${CONFIG_VARIABLES.join(' ')}
`

export function parseArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): CliCommand {
  if (argv[0] === 'inspect') return parseInspect(argv.slice(1))
  if (argv[0] === 'docs') return parseDocsArgs(argv.slice(1), env)
  let configFile: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--help' || a === '-h') return { kind: 'help' }
    if (a === '--config') {
      const next = argv[++i]
      if (next === undefined) return { kind: 'usage-error', message: '--config needs a file path' }
      configFile = next
    } else if (a?.startsWith('--config=') === true) configFile = a.slice('--config='.length)
    else return { kind: 'usage-error', message: `unknown argument ${JSON.stringify(a)} (see --help)` }
  }
  return configFile === undefined ? { kind: 'run' } : { kind: 'run', configFile }
}
