/**
 * Replies that could not be delivered: the redacted text goes to a file beside the chat's state
 * (`<stem>.turn-<n>.reply.txt`, 0600) and an entry into the state's `undelivered` list, which stays
 * until the group has been told the reply failed (after a restart too, with --resume).
 */
import { writeFileSync } from 'node:fs'
import { chatStem, MAX_UNDELIVERED, saveChatState, type ChatState } from './chat-state.ts'

export type Undelivered = NonNullable<ChatState['undelivered']>[number]

/** Saves the reply text and records it in `state` (persisted); returns the entry. */
export function saveUndelivered(
  root: string,
  state: ChatState,
  reply: Omit<Undelivered, 'file'> & { text: string },
): Undelivered {
  const file = `${chatStem(root, state.groupId)}.turn-${reply.turn}.reply.txt`
  writeFileSync(file, reply.text, { mode: 0o600 })
  const { text: _text, ...rest } = reply
  const entry: Undelivered = { ...rest, file }
  // Within the state file's bound: the oldest notice goes first (its file stays).
  state.undelivered = [...(state.undelivered ?? []).filter((u) => u.turn !== reply.turn), entry].slice(-MAX_UNDELIVERED)
  saveChatState(root, state)
  return entry
}

/** Drops the entry once the group was told (the file stays for the operator). */
export function clearUndelivered(root: string, state: ChatState, turn: number): void {
  state.undelivered = (state.undelivered ?? []).filter((u) => u.turn !== turn)
  if (state.undelivered.length === 0) delete state.undelivered
  saveChatState(root, state)
}

/** The group's notice for a reply given up. */
export function undeliveredText(u: Undelivered, host: string): string {
  return `turn ${u.turn}: the reply could not be delivered (${u.posted} of ${u.total} part(s) posted; ${u.why}). It is saved on ${host} in ${u.file}.`
}
