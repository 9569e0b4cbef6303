/**
 * `createToySignal`: a mock signal-cli daemon (HTTP JSON-RPC + SSE) that clients cannot tell from a
 * real 0.14.x one on the contract's surface, plus fault switches for reliability tests.
 * @see docs/daemon-contract.md §5 and §7
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isPlayableVersion } from './daemon-version.ts'
import { ToySignalError } from './errors.ts'
import { SIGNAL_LIMITS } from './platform-limits.ts'
import { createEventHub, type EventHub } from './event-hub.ts'
import { createAttachmentStore, DEFAULT_ATTACHMENT_STORE_LIMITS } from './attachments.ts'
import { createFaults, type FaultSwitches } from './faults.ts'
import { createSignalPace, SIGNAL_PACE, type PaceLimits, type PaceRefusals, type SignalPace } from './pace.ts'
import { createRequestHandler } from './request-handler.ts'
import { createProvisioningState } from './provisioning-state.ts'
import { restoreGroups, snapshotGroups, type GroupSnapshot } from './group-snapshot.ts'
import { keepGroupsIn, readGroupsFile } from './groups-file.ts'
import { createState, type SendRecord } from './state.ts'

/** Options of {@link createToySignal}. */
export interface ToySignalOptions {
  /** Bind address; default 127.0.0.1. */
  host?: string
  /** Default 0 (a free port). */
  port?: number
  /** E.164 numbers served in multi-account mode. */
  accounts?: string[]
  /** Runs as `signal-cli -a NUMBER daemon`: one account, `account` params ignored. */
  singleAccount?: string
  /** Groups created at start; members are accounts or other numbers; `id` defaults to 32 random bytes. */
  groups?: { name: string; members: string[]; id?: string }[]
  /** Groups of an earlier toy, as {@link ToySignal.snapshotGroups} gave them (after `groups`). */
  restoreGroups?: unknown
  /**
   * A file that keeps the groups across runs: read at start (after `groups` and `restoreGroups`),
   * written (temporary file, flush, rename) whenever a request changed a group, before it is answered.
   */
  groupsFile?: string
  /**
   * Numbers Signal does not know (members who left Signal): group sends report
   * `UNREGISTERED_FAILURE` for them, direct sends fail with -1 `The user … is not registered.`,
   * and `getUserStatus` says `isRegistered:false`. Must not be accounts.
   */
  unregistered?: string[]
  /**
   * Numbers added to a group by someone who holds no profile key of theirs (they share no group as
   * full members) are invited as pending members, as on Signal, and join when they accept. Off by
   * default: every added number joins at once.
   */
  pendingInvites?: boolean
  /** Profile names Signal shows for numbers (listContacts). */
  names?: Record<string, string>
  /** Contact names each account gave others (account → number → name), as `updateContact` sets them. */
  contacts?: Record<string, Record<string, string>>
  /** Enables the fault switches and the `/toy/v1/` admin route. */
  faults?: boolean
  /** Keep-alive comment period of the events stream; signal-cli uses 15000. */
  keepAliveMs?: number
  /** Messages kept per account while no stream carries it (oldest dropped beyond); default 1000. */
  maxQueuedPerAccount?: number
  /**
   * Enforce Signal's pace (open-source server defaults: 60 messages per sender → destination
   * refilled one per second, 50 attachment uploads refilled one per 1.2 s). Off by default; the
   * bench and the soak turn it on. `'count'` refuses nothing but counts what Signal would have
   * refused ({@link ToySignal.refused}), for runs that measure the machine rather than Signal.
   */
  signalPace?: boolean | 'count'
  /** Other limits than the open-source server's defaults for `signalPace` (tests shrink the byte budget). */
  signalPaceLimits?: Partial<PaceLimits>
  /** Largest attachment a send accepts (default 100 MiB); above it the send fails with -32603. */
  maxAttachmentBytes?: number
  /** Bounds of the received-attachment store over all accounts (default 64 MiB, 4096 files). */
  attachmentStore?: { maxBytes: number; maxCount: number }
  /** How long `finishLink` waits for a scan before it times out (default 60000, about the real one). */
  linkTimeoutMs?: number
  /** Signal is unreachable: `startLink` and `register` fail as an offline signal-cli 0.13.19 does. */
  offline?: boolean
  /**
   * The signal-cli version the toy plays (default `0.14.6-toy`): `version` answers it, and
   * answers that changed between releases follow it (`0.13.19` plays the contract suite's real
   * daemon: no `isAdmin`, `noUrgent` ignored; `0.14.0`+ honours `noUrgent`).
   */
  signalCliVersion?: string
  /** Receives one debug line per request and notices; nothing is printed by default. */
  log?: (line: string) => void
}

/** A running toy daemon. */
export interface ToySignal {
  /** `http://HOST:PORT` */
  url: string
  port: number
  groups: { name: string; id: string; members: string[] }[]
  /** Every group now, to start a later toy with (`restoreGroups`). */
  snapshotGroups(): GroupSnapshot[]
  /** Every send accepted so far, oldest first (bounded to the latest 10 000). */
  sends(): ReadonlyArray<SendRecord>
  /** Requests Signal's pace refused, or would have refused in `'count'` mode (zero while off). */
  refused(): PaceRefusals
  faults: FaultSwitches
  /**
   * Plays Signal removing the account's linked device (idle over 45 days, or removed on the phone):
   * as a multi-account signal-cli does when its websocket's authentication fails, the account leaves
   * the daemon (calls naming it are -32602 `Specified account does not exist`, its events stream
   * 400), and open streams are cut.
   */
  removeLinkedDevice(number: string): void
  /**
   * Plays `number` installing Signal again: every account of the toy holds a new identity key for
   * them, untrusted (`listIdentities` says UNTRUSTED), as after their next message on Signal.
   */
  changeIdentity(number: string): void
  /** Plays `account` comparing safety numbers with `number` (TRUSTED_VERIFIED). */
  verifyIdentity(account: string, number: string): void
  close(): Promise<void>
}

const E164 = /^\+[1-9]\d{6,14}$/

function checkOptions(options: ToySignalOptions): void {
  const numbers = [
    ...(options.accounts ?? []),
    ...(options.singleAccount === undefined ? [] : [options.singleAccount]),
    ...(options.groups ?? []).flatMap((g) => g.members),
    ...(options.unregistered ?? []),
  ]
  const bad = numbers.find((n) => !E164.test(n))
  if (bad !== undefined)
    throw new ToySignalError(
      'TOY_CONFIG_INVALID',
      'every account and group member must be an E.164 number (+ and 7-15 digits)',
    )
  const accounts = new Set([
    ...(options.accounts ?? []),
    ...(options.singleAccount === undefined ? [] : [options.singleAccount]),
  ])
  if ((options.unregistered ?? []).some((n) => accounts.has(n))) {
    throw new ToySignalError('TOY_CONFIG_INVALID', 'an unregistered number cannot also be an account')
  }
  for (const [name, value, min] of [
    ['keepAliveMs', options.keepAliveMs, 1],
    ['maxQueuedPerAccount', options.maxQueuedPerAccount, 1],
    ['port', options.port, 0],
    ['linkTimeoutMs', options.linkTimeoutMs, 1],
    ['maxAttachmentBytes', options.maxAttachmentBytes, 1],
    ['attachmentStore.maxBytes', options.attachmentStore?.maxBytes, 1],
    ['attachmentStore.maxCount', options.attachmentStore?.maxCount, 1],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
      throw new ToySignalError('TOY_CONFIG_INVALID', `${name} must be an integer >= ${min}`)
    }
  }
  if (options.signalCliVersion !== undefined && !isPlayableVersion(options.signalCliVersion))
    throw new ToySignalError('TOY_CONFIG_INVALID', 'signalCliVersion must be MAJOR.MINOR.PATCH, e.g. 0.13.19')
  for (const group of options.groups ?? []) {
    if (new Set(group.members).size > SIGNAL_LIMITS.groupMembers)
      throw new ToySignalError(
        'TOY_CONFIG_INVALID',
        `group "${group.name}": Signal allows at most ${SIGNAL_LIMITS.groupMembers} members`,
      )
    if (group.id !== undefined && ![16, 32].includes(Buffer.from(group.id, 'base64').length)) {
      throw new ToySignalError('TOY_CONFIG_INVALID', `group "${group.name}": id must be base64 of 16 or 32 bytes`)
    }
  }
}

/** Starts a toy daemon and resolves once it listens. @throws ToySignalError `TOY_CONFIG_INVALID`, `TOY_LISTEN_FAILED` */
export async function createToySignal(options: ToySignalOptions): Promise<ToySignal> {
  checkOptions(options)
  const log = options.log ?? (() => {})
  const host = options.host ?? '127.0.0.1'
  const state = createState(
    {
      accounts: options.accounts ?? [],
      singleAccount: options.singleAccount,
      unregistered: options.unregistered,
      names: options.names,
      contacts: options.contacts,
      pendingInvites: options.pendingInvites,
      version: options.signalCliVersion,
    },
    { randomBytes: (n) => randomBytes(n), randomUuid: () => randomUUID(), now: () => Date.now() },
  )
  const groups = (options.groups ?? []).map((g) => state.createGroup(g.name, g.members, undefined, g.id))
  if (options.restoreGroups !== undefined) restoreGroups(state, options.restoreGroups)
  const kept = options.groupsFile === undefined ? undefined : readGroupsFile(options.groupsFile)
  if (kept !== undefined) restoreGroups(state, kept)
  const groupsFile = options.groupsFile === undefined ? undefined : keepGroupsIn(options.groupsFile, state)
  // The switches cut streams through the hub, and the hub reads the switches: tie the knot once.
  const hubRef: { current?: EventHub } = {}
  const faults = createFaults(options.faults === true, (afterEvents) => hubRef.current?.cut(afterEvents))
  const hub = createEventHub({
    keepAliveMs: options.keepAliveMs ?? 15_000,
    maxQueuedPerAccount: options.maxQueuedPerAccount ?? 1000,
    faults: faults.state,
    log,
  })
  hubRef.current = hub
  const provisioning = createProvisioningState({
    linkTimeoutMs: options.linkTimeoutMs ?? 60_000,
    offline: options.offline === true,
    now: () => Date.now(),
  })

  const pace: SignalPace | undefined =
    options.signalPace === undefined || options.signalPace === false
      ? undefined
      : createSignalPace({ ...SIGNAL_PACE, ...options.signalPaceLimits }, options.signalPace === true)
  let port = 0
  // Node rejects a request without Host by default; signal-cli answers 421 instead, so let it through.
  const server = createServer(
    { requireHostHeader: false },
    createRequestHandler({
      state,
      hub,
      faults: { enabled: options.faults === true, ...faults },
      provisioning,
      bind: { host, port: () => port },
      log,
      attachments: createAttachmentStore(options.attachmentStore ?? DEFAULT_ATTACHMENT_STORE_LIMITS),
      maxAttachmentBytes: options.maxAttachmentBytes ?? SIGNAL_LIMITS.attachmentBytes,
      pace,
      afterRequest: () => groupsFile?.save(),
    }),
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new ToySignalError('TOY_LISTEN_FAILED', `cannot listen on ${host}:${options.port ?? 0}: ${error.message}`, {
          cause: error,
        }),
      ),
    )
    server.listen(options.port ?? 0, host, () => resolve())
  })
  port = (server.address() as AddressInfo).port
  const urlHost = host.includes(':') ? `[${host}]` : host

  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${port}`,
    port,
    groups: groups.map((g) => ({ name: g.name, id: g.id, members: [...g.members] })),
    snapshotGroups: () => snapshotGroups(state),
    sends: () => state.sends().map((s) => ({ ...s })),
    faults: faults.switches,
    removeLinkedDevice(number) {
      state.removeAccount(number)
      hub.cut()
    },
    changeIdentity: (number) => state.people.changeIdentity(number, state.accounts),
    verifyIdentity: (account, number) => state.people.verifyIdentity(account, number),
    refused: () => pace?.refused() ?? { messages: 0, attachments: 0, inboundBytes: 0 },
    close() {
      closing ??= new Promise<void>((resolve) => {
        hub.close()
        provisioning.close()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    },
  }
}
