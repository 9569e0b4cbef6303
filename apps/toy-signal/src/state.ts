/**
 * The toy's world: local accounts, every known number's UUID, groups and the log of sends.
 * Randomness and time are injected so tests can pin them.
 */

import { playedVersion, TOY_VERSION, type PlayedVersion } from './daemon-version.ts'
import { createPeopleBook, type PeopleBook } from './people-book.ts'

/** A group permission as listGroups names it. */
export type GroupPermission = 'EVERY_MEMBER' | 'ONLY_ADMINS'

/**
 * One group as the toy stores it; `formerMembers` still see it in listGroups with `isMember:false`.
 * `pending` are invited numbers (added by someone who had no profile key of theirs): they see the
 * group and its updates, not its messages, until they accept with `updateGroup`.
 */
export interface ToyGroup {
  id: string
  name: string
  description: string
  revision: number
  members: string[]
  admins: Set<string>
  /** Who may add members and edit the name and details (signal-cli's creation default: every member). */
  permissions: { addMember: GroupPermission; editDetails: GroupPermission }
  formerMembers: Set<string>
  pending: string[]
  requesting: string[]
  /** Disappearing-messages timer in seconds (0 = off). */
  expiration: number
  /** Banned people: they cannot join by the group's link (Signal's server refuses them). */
  banned: Set<string>
  /** The invite link's state and its password (changed by `resetLink`). */
  link: GroupLinkState
  linkPassword: string
  /** Member labels (signal-cli 0.14.1+: each member sets their own), by number. */
  labels: Map<string, MemberLabel>
  /** Ended for everyone by an admin (`terminateGroup`, signal-cli 0.14.8+): read-only for good. */
  terminated?: true
  /** A v1 group made locally when Signal could not be reached to create a v2 one (no description, no admins). */
  legacy?: true
}

/** A member's own label, as a phone shows it beside their name. */
export interface MemberLabel {
  label?: string
  labelEmoji?: string
}

/** An invite link's state as listGroups and `updateGroup --link` name it. */
export type GroupLinkState = 'disabled' | 'enabled' | 'enabled-with-approval'

/** One accepted send, as {@link ToySignalState.sends} reports it. */
export interface SendRecord {
  account: string
  groupId?: string
  recipients?: string[]
  message: string
  timestamp: number
  /**
   * False when the send went without the urgent flag (`noUrgent`, honoured from 0.14.0; an older
   * daemon ignores the unknown param): the recipient's phone gets no push for it.
   */
  urgent: boolean
  /** A `sendAdminDelete`: whose message, by its sent timestamp (absent for other sends). */
  adminDelete?: { targetAuthor: string; targetSentTimestamp: number }
  /** Attachments the send carried, and their bytes (absent when none). */
  attachments?: number
  attachmentBytes?: number
}

/** Dependencies of the state: where randomness and time come from. */
export interface StateDeps {
  randomBytes(size: number): Uint8Array
  randomUuid(): string
  now(): number
}

/** Mutable daemon state shared by the method handlers. */
export interface ToySignalState {
  readonly mode: 'multi' | 'single'
  /** The signal-cli version the toy plays (answers that changed between releases follow it). */
  readonly version: PlayedVersion
  readonly accounts: readonly string[]
  /** A linked or registered account joins (multi-account mode, as signal-cli adds its manager). */
  addAccount(number: string): void
  /** Signal removed the account's device: the daemon drops it, as signal-cli closes its manager. */
  removeAccount(number: string): void
  /** Where a real daemon would keep the account's file (named in `finishLink`'s "already exists"). */
  accountFile(number: string): string
  readonly groups: Map<string, ToyGroup>
  isAccount(number: string): boolean
  /**
   * Whether Signal knows the number: the toy's accounts and every number in one of its groups, except
   * the numbers configured as unregistered (members who left Signal).
   */
  isRegistered(number: string): boolean
  uuidOf(number: string): string
  numberOfUuid(uuid: string): string | undefined
  /** A timestamp unique across the daemon and never lower than the previous one (v0.13.16 rule). */
  nextTimestamp(): number
  createGroup(name: string, members: readonly string[], creator: string | undefined, id?: string): ToyGroup
  /**
   * Whether `account` holds `number`'s profile key, so it can add them as a full member. With
   * `pendingInvites` the toy says so only when both are full members of one group (where profile
   * keys are exchanged); without it, always (every added number joins at once).
   */
  knows(account: string, number: string): boolean
  /** The profile name Signal shows for a number, when the toy was given one or the account picked one. */
  profileName(number: string): string | undefined
  /** An account picks its profile name (`updateProfile`). */
  setProfileName(number: string, name: string): void
  /** Contact records and identity keys per account (`updateContact`, `listContacts`, `listIdentities`). */
  readonly people: PeopleBook
  recordSend(record: SendRecord): void
  sends(): readonly SendRecord[]
  readonly now: () => number
  randomId(size: number): string
  randomUuid(): string
}

const MAX_SEND_RECORDS = 10_000

/** Creates the state for the given accounts (multi mode) or the single `-a` account. */
export function createState(
  setup: {
    accounts: readonly string[]
    singleAccount?: string | undefined
    unregistered?: readonly string[] | undefined
    names?: Readonly<Record<string, string>> | undefined
    /** Contact names each account gave others: account → number → name. */
    contacts?: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined
    pendingInvites?: boolean | undefined
    version?: string | undefined
  },
  deps: StateDeps,
): ToySignalState {
  const mode = setup.singleAccount === undefined ? 'multi' : 'single'
  const accounts = setup.singleAccount === undefined ? [...new Set(setup.accounts)] : [setup.singleAccount]
  const uuids = new Map<string, string>()
  const numbers = new Map<string, string>()
  const groups = new Map<string, ToyGroup>()
  const sendLog: SendRecord[] = []
  const unregistered = new Set(setup.unregistered ?? [])
  let lastTimestamp = 0

  const uuidOf = (number: string): string => {
    let uuid = uuids.get(number)
    if (uuid === undefined) {
      uuid = deps.randomUuid()
      uuids.set(number, uuid)
      numbers.set(uuid, number)
    }
    return uuid
  }
  for (const account of accounts) uuidOf(account)
  const people = createPeopleBook(deps.now)
  const picked = new Map<string, string>()
  for (const [account, named] of Object.entries(setup.contacts ?? {}))
    for (const [number, givenName] of Object.entries(named)) people.setContact(account, number, { givenName })

  return {
    mode,
    version: playedVersion(setup.version ?? TOY_VERSION),
    accounts,
    addAccount(number) {
      if (accounts.includes(number)) return
      accounts.push(number)
      uuidOf(number)
    },
    removeAccount(number) {
      const at = accounts.indexOf(number)
      if (at !== -1) accounts.splice(at, 1)
    },
    accountFile: (number) =>
      `~/.local/share/signal-cli/data/${String(100_000 + (((accounts.indexOf(number) + 1) * 7919) % 900_000))}`,
    groups,
    isAccount: (number) => accounts.includes(number),
    isRegistered(number) {
      if (accounts.includes(number)) return true
      if (unregistered.has(number)) return false
      return [...groups.values()].some((g) => g.members.includes(number) || g.formerMembers.has(number))
    },
    uuidOf,
    numberOfUuid: (uuid) => numbers.get(uuid.toLowerCase()),
    nextTimestamp() {
      lastTimestamp = Math.max(deps.now(), lastTimestamp + 1)
      return lastTimestamp
    },
    createGroup(name, members, creator, id) {
      // Real v2 group ids are 32 random bytes, base64 with padding.
      const groupId = id ?? Buffer.from(deps.randomBytes(32)).toString('base64')
      const unique = [...new Set(creator === undefined ? members : [creator, ...members])]
      for (const member of unique) uuidOf(member)
      const group: ToyGroup = {
        id: groupId,
        name,
        description: '',
        revision: 0,
        members: unique,
        admins: new Set(creator === undefined ? unique.slice(0, 1) : [creator]),
        permissions: { addMember: 'EVERY_MEMBER', editDetails: 'EVERY_MEMBER' },
        formerMembers: new Set(),
        pending: [],
        requesting: [],
        expiration: 0,
        banned: new Set(),
        labels: new Map(),
        // signal-cli creates a group without a link (GroupsV2Operations.createNewGroup).
        link: 'disabled',
        linkPassword: Buffer.from(deps.randomBytes(16)).toString('base64url'),
      }
      groups.set(groupId, group)
      return group
    },
    knows: (account, number) =>
      setup.pendingInvites !== true ||
      account === number ||
      [...groups.values()].some((g) => g.members.includes(account) && g.members.includes(number)),
    profileName: (number) => picked.get(number) ?? setup.names?.[number],
    setProfileName(number, name) {
      picked.set(number, name)
    },
    people,
    recordSend(record) {
      sendLog.push(record)
      // Bounded: a long-running demo toy must not grow without limit.
      if (sendLog.length > MAX_SEND_RECORDS) sendLog.splice(0, sendLog.length - MAX_SEND_RECORDS)
    },
    sends: () => sendLog,
    now: deps.now,
    randomId: (size) => Buffer.from(deps.randomBytes(size)).toString('base64url'),
    randomUuid: deps.randomUuid,
  }
}
