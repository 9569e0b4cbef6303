/**
 * What `--resume <groupId>` needs to re-attach: one JSON file per chat under the user's state
 * directory ($XDG_STATE_HOME/e2e-col or ~/.local/state/e2e-col), mode 0600 in a 0700 directory,
 * written atomically (temp file + rename).
 */
import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { ChatError } from '../errors.ts'

/** Most replies waiting to be reported failed that one state file holds. */
export const MAX_UNDELIVERED = 1000

const ChatState = z.object({
  version: z.literal(1),
  groupId: z.string().min(1),
  groupName: z.string(),
  sessionId: z.uuid(),
  agent: z.enum(['copilot', 'claude', 'command']),
  topic: z.string(),
  account: z.string(),
  turns: z.number().int().nonnegative(),
  sessionStarted: z.boolean(),
  createdAt: z.string(),
  /** The turn running right now: its process group, so a later start can find a leftover one. */
  runningTurn: z
    .object({
      turn: z.number().int().positive(),
      pgid: z.number().int().positive(),
      /** The loop process that started it. */
      loopPid: z.number().int().positive(),
      /** The leader's start time in clock ticks since boot (/proc/<pid>/stat field 22), when known. */
      leaderStart: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** Replies not delivered in time, saved on disk; each is reported failed once the group is reachable. */
  undelivered: z
    .array(
      z.object({
        turn: z.number().int().positive(),
        file: z.string().min(1),
        posted: z.number().int().nonnegative(),
        total: z.number().int().nonnegative(),
        why: z.string().max(500),
        target: z.object({ author: z.string(), timestamp: z.number().int() }).optional(),
      }),
    )
    .max(MAX_UNDELIVERED)
    .optional(),
})
/** The persisted state of one chat. */
export type ChatState = z.infer<typeof ChatState>

/** The state directory for `env`: `$XDG_STATE_HOME/e2e-col`, else `$HOME/.local/state/e2e-col`. */
export function stateDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env['XDG_STATE_HOME']
  if (xdg !== undefined && xdg.startsWith('/')) return join(xdg, 'e2e-col')
  const home = env['HOME']
  if (home === undefined || home === '')
    throw new ChatError('CHAT_STATE', 'cannot find a state directory: set XDG_STATE_HOME or HOME')
  return join(home, '.local', 'state', 'e2e-col')
}

/** The chats directory, created 0700 when missing. */
export function chatsDir(root: string): string {
  const dir = join(root, 'chats')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  return dir
}

/** The per-chat file stem for a group id (base64 has `/` and `+`, so it is hashed). */
export function chatStem(root: string, groupId: string): string {
  return join(chatsDir(root), createHash('sha256').update(groupId).digest('hex').slice(0, 32))
}

function fileFor(root: string, groupId: string): string {
  return `${chatStem(root, groupId)}.json`
}

/** Writes the state (0600, atomic). */
export function saveChatState(root: string, state: ChatState): void {
  const file = fileFor(root, state.groupId)
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, file)
}

/** Every readable chat state under `root` (unreadable or invalid files are skipped). */
export function listChatStates(root: string): ChatState[] {
  const out: ChatState[] = []
  for (const name of readdirSync(chatsDir(root))) {
    if (!name.endsWith('.json')) continue
    try {
      const parsed = ChatState.safeParse(JSON.parse(readFileSync(join(chatsDir(root), name), 'utf8')))
      if (parsed.success) out.push(parsed.data)
    } catch {
      // not ours to judge here: --resume reports a broken file for its own chat
    }
  }
  return out
}

/** Reads the state of a chat created before; throws `CHAT_STATE` when there is none or it is corrupt. */
export function loadChatState(root: string, groupId: string): ChatState {
  let text: string
  try {
    text = readFileSync(fileFor(root, groupId), 'utf8')
  } catch {
    throw new ChatError(
      'CHAT_STATE',
      'no chat state for that group id on this machine: --resume only re-attaches chats started here',
    )
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ChatError('CHAT_STATE', 'the chat state file is not valid JSON')
  }
  const parsed = ChatState.safeParse(json)
  if (!parsed.success || parsed.data.groupId !== groupId)
    throw new ChatError('CHAT_STATE', 'the chat state file is invalid')
  return parsed.data
}
