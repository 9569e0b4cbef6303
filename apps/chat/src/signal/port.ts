/**
 * The chat loop's port to a Signal daemon. {@link createChatSignal} implements it on the
 * signal-cli HTTP backend (`@e2e-col/signal-cli`), translating its errors into the chat's, so
 * there is one signal-cli client in the repository. Tests wrap it to inject faults.
 */
import type { SignalMessage } from '@e2e-col/signal-cli'

/** One text message in a group, as the daemon client reads it off the events stream. */
export type InboundMessage = SignalMessage

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
  /** Posts text, with attachments (RFC 2397 data URIs) when given; resolves to its sent timestamp (its id on Signal). */
  sendGroup(groupId: string, message: string, attachments?: readonly string[]): Promise<number>
  /** Sets our reaction on a message (Signal keeps one per author: it replaces the last). */
  react(groupId: string, target: { author: string; timestamp: number }, emoji: string): Promise<void>
  /** The group's membership, or `undefined` when the daemon does not know the group. */
  groupMembership(groupId: string): Promise<GroupMembership | undefined>
  quitGroup(groupId: string): Promise<void>
  /** Opens the events stream; yields each group text message; ends when the stream ends. */
  openEvents(signal: AbortSignal): Promise<AsyncIterable<InboundMessage>>
  /** Ends the client's connections. */
  close(): Promise<void>
}
