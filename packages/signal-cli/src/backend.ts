/**
 * The port between the sidecar and a Signal daemon. {@link HttpSignalBackend} implements it over
 * signal-cli's HTTP JSON-RPC + SSE; tests run that same implementation against the toy daemon.
 */
import type { SendResult, GroupListing, SafetyState } from './jsonrpc.ts'

/**
 * A text message in a group. `origin` is `sync` for a copy of our own account's send from another
 * device (`syncMessage.sentMessage`). Sender fields are what the daemon says; absent when it
 * does not say.
 */
export interface SignalMessage {
  type: 'message'
  groupId: string
  body: string
  origin: 'data' | 'sync'
  /** The message's sent timestamp (its id on Signal), when the daemon gave one. */
  timestamp: number | undefined
  sourceNumber: string | undefined
  sourceUuid: string | undefined
  sourceDevice: number | undefined
  /** The account the daemon received it for, when the payload names it. */
  account: string | undefined
  /** The message's attachments as the daemon lists them (absent or empty when none). */
  attachments?: readonly SignalAttachment[]
}

/** One entry of a message's `attachments[]`: what `getAttachment` needs, and the size to check first. */
export interface SignalAttachment {
  id: string
  size: number | undefined
  contentType: string | undefined
}

/**
 * A group changed (name, description, members, someone invited or removed): the daemon's
 * `groupInfo.type: "UPDATE"` message, which carries no body. What changed is read with listGroups.
 */
export interface SignalGroupUpdate {
  type: 'group-update'
  groupId: string
  sourceNumber: string | undefined
}

/**
 * A message in the account's own Note to Self, written on another device of the account (the
 * person's phone): a `syncMessage.sentMessage` with no group whose destination is the account
 * itself. Its body is untrusted text like any other.
 */
export interface SignalNoteToSelf {
  type: 'note-to-self'
  body: string
  /** The message's sent timestamp, when the daemon gave one. */
  timestamp: number | undefined
  sourceDevice: number | undefined
}

/**
 * One item read from the events stream: a message body in a group, a group change, a Note to Self
 * from another device of the account, or a counted skip.
 */
export type SignalEvent = SignalMessage | SignalGroupUpdate | SignalNoteToSelf | { type: 'skipped'; reason: SkipReason }

/** Why an events-stream item carried nothing for the sidecar (each is counted, never fatal). */
export type SkipReason = 'malformed' | 'unrelated-event' | 'other-account' | 'no-body' | 'not-group' | 'exception'

/** One open events stream. Iterating ends when the stream ends; errors end it with a throw. */
export interface SignalEventStream extends AsyncIterable<SignalEvent> {
  close(): void
}

export interface SignalBackend {
  /** Resolves when the daemon says it is running. @throws SignalCliError */
  check(signal?: AbortSignal): Promise<void>
  /** The daemon's version, or `undefined` when it has no `version` method. */
  version(): Promise<string | undefined>
  /** Accounts served by a multi-account daemon; `undefined` in single-account mode. */
  listAccounts(): Promise<string[] | undefined>
  /** The account's groups; with `groupId`, the daemon is asked for that one (callers still match by id). */
  listGroups(groupId?: string): Promise<GroupListing>
  /**
   * Sends one text body to a group, with `attachments` (data URIs) when given.
   * @throws SignalRpcError | SignalUnavailableError | SignalCliError
   */
  sendGroupMessage(groupId: string, message: string, attachments?: readonly string[]): Promise<SendResult>
  /**
   * The bytes of an attachment the daemon received in `groupId` (`getAttachment`).
   * @throws SignalRpcError (-1 when the daemon does not have it) | SignalUnavailableError | SignalCliError
   */
  getAttachment(id: string, groupId: string): Promise<Uint8Array>
  /**
   * Opens the events stream; resolves once it answered 200 `text/event-stream`. A backend that
   * knows history was lost throws BroadcastRecoveryRequiredError from the iterator.
   */
  openEvents(signal: AbortSignal): Promise<SignalEventStream>
  close(): Promise<void>
}

/**
 * Group administration and reactions, used by the chat loop (`@e2e-col/chat`) on top of
 * {@link SignalBackend}. The HTTP backend implements both.
 */
export interface SignalChatMethods {
  /** `updateGroup` without a group id: creates a group with these members; resolves to its id. */
  createGroup(name: string, members: readonly string[]): Promise<string>
  /** `sendMessageRequestResponse` `type: accept` for a group, before anything is posted to it. */
  acceptGroupRequest(groupId: string): Promise<void>
  /** Sets our reaction on a message (Signal keeps one per author: it replaces the last). */
  sendReaction(groupId: string, target: { author: string; timestamp: number }, emoji: string): Promise<void>
  quitGroup(groupId: string): Promise<void>
}

/** A change to a group; absent fields stay as they are. */
export interface GroupChange {
  name?: string
  description?: string
  addMembers?: readonly string[]
  removeMembers?: readonly string[]
  /**
   * People banned (`ban`): Signal's server then refuses them the group's invite link. Those also
   * in `removeMembers` are removed and banned in one change; adding someone banned lifts the ban.
   */
  ban?: readonly string[]
  /** The invite link: off, or on with an admin's approval for each request (`link`). */
  link?: 'disabled' | 'enabled-with-approval'
  /** Members made admins (`admins`), and admins made plain members again (`removeAdmins`). */
  addAdmins?: readonly string[]
  removeAdmins?: readonly string[]
  /** Who may add members and edit details from now on. */
  permissions?: GroupPermission
}

/** Who may add members and edit the group's details (`setPermissionAddMember`, `setPermissionEditDetails`). */
export type GroupPermission = 'every-member' | 'only-admins'

/** One of the account's contacts, as `listContacts` names them. */
export interface SignalContact {
  number: string
  /** The contact's name, else the profile name; undefined when neither is set. */
  name: string | undefined
  /**
   * The account gave them a name of its own (a contact record: given, family or nick name), as
   * opposed to a profile name anyone can pick. Absent from answers that cannot say.
   */
  inContacts?: boolean
}

export type { SafetyState } from './jsonrpc.ts'

/** One identity key the account knows, as `listIdentities` lists it. */
export interface SignalIdentity {
  number: string
  safety: SafetyState
}

/** Group administration and contacts, used by the document library (library/). */
export interface SignalDocumentMethods {
  /** `updateGroup` without a group id, with a description and a disappearing-messages timer (s; 0 = off). */
  createGroupWith(spec: {
    name: string
    members: readonly string[]
    description: string
    expirationSeconds: number
    /** Members made admins at creation (signal-cli applies them once the group exists). */
    admins?: readonly string[]
    /** Who may add members and edit details (absent: signal-cli's default, every member). */
    permissions?: GroupPermission
  }): Promise<string>
  /** `updateGroup` on an existing group; an invited account accepting does it with an empty change. */
  updateGroup(groupId: string, change: GroupChange): Promise<void>
  /** `quitGroup`, naming new admins when this account is the last one. */
  leaveGroup(groupId: string, newAdmins: readonly string[]): Promise<void>
  /**
   * `updateGroup memberLabel`: this account's own label in the group, which phones show beside its
   * name. Resolves false, asking nothing, when the daemon predates labels (signal-cli 0.14.1).
   */
  labelSelf(groupId: string, label: string): Promise<boolean>
  /**
   * `terminateGroup`: an admin ends the group for everyone (read-only for good; signal-cli 0.14.8).
   * Resolves false, asking nothing, when the daemon predates it.
   */
  terminateGroup(groupId: string): Promise<boolean>
  /**
   * `sendAdminDelete`: as a group admin, deletes another member's message (`author`, its sent
   * `timestamp`) from every member's chat history. Resolves false, asking nothing, when the daemon
   * predates it (signal-cli 0.14.0).
   */
  adminDelete(groupId: string, target: { author: string; timestamp: number }): Promise<boolean>
  /**
   * `send` to one person (`recipient`), urgent whatever the backend's machine-traffic setting: a
   * message meant to ring their phone (a mention, decision 0038).
   * @throws SignalRpcError | SignalUnavailableError | SignalCliError
   */
  notifyPerson(recipient: string, message: string): Promise<SendResult>
  /**
   * `send` with `noteToSelf`: a message in the account's own Note to Self, which the person's phone
   * shows and notifies (urgent whatever the machine-traffic setting; approval from the phone).
   * @throws SignalRpcError | SignalUnavailableError | SignalCliError
   */
  sendNoteToSelf(message: string): Promise<SendResult>
  /** `listContacts` with `allRecipients`: contact records and the people known from groups. */
  listContacts(): Promise<SignalContact[]>
  /** `listIdentities`: the safety-number state of everyone whose identity key the account holds. */
  listIdentities(): Promise<SignalIdentity[]>
}

/** What {@link createHttpSignalBackend} returns. */
export type FullSignalBackend = SignalBackend & SignalChatMethods & SignalDocumentMethods
