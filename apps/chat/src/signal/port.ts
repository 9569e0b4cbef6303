/**
 * The chat loop's port to a Signal daemon. {@link createHttpChatSignal} implements it over
 * signal-cli's HTTP JSON-RPC + SSE. It is small on purpose so it can later be backed by the
 * sidecar's own backend (which does not yet expose sender, device and timestamp of a message).
 */

/** A group member as listGroups shows it; `number` is null for people who hide their number. */
export interface GroupMember {
  number: string | null
  uuid: string | null
}

/** The membership of one group as the daemon sees it. */
export interface GroupMembership {
  isMember: boolean
  members: GroupMember[]
  pendingMembers: GroupMember[]
  requestingMembers: GroupMember[]
}

export interface ChatSignal {
  /** Resolves when `/api/v1/check` answers 200. */
  check(signal?: AbortSignal): Promise<void>
  /** Accounts of a multi-account daemon; `undefined` for a single-account daemon (`-a`). */
  listAccounts(): Promise<string[] | undefined>
  /** Creates a group with these members; resolves to its id. */
  createGroup(name: string, members: readonly string[]): Promise<string>
  /** `sendMessageRequestResponse` `accept` for the group. */
  acceptGroup(groupId: string): Promise<void>
  /** Posts text; resolves to its sent timestamp (its id on Signal). */
  sendGroup(groupId: string, message: string): Promise<number>
  /** Sets our reaction on a message (Signal keeps one per author: it replaces the last). */
  react(groupId: string, target: { author: string; timestamp: number }, emoji: string): Promise<void>
  /** The group's membership, or `undefined` when the daemon does not know the group. */
  groupMembership(groupId: string): Promise<GroupMembership | undefined>
  quitGroup(groupId: string): Promise<void>
  /** Opens the events stream; yields each `receive` event's raw `data`; ends when the stream ends. */
  openEvents(signal: AbortSignal): Promise<AsyncIterable<string>>
}
