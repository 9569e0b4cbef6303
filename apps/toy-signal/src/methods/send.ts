/**
 * `send` (group and direct) and the delivery it causes: a `dataMessage` on every recipient's stream
 * and a `syncMessage.sentMessage` on the sender's own stream, sharing one unique timestamp.
 * @see reference `signal-cli-wire.md` §4.1, §6
 */
import { incomingMessage, sentMessageSync, type MessageContent } from '../envelopes.ts'
import { uploadAttachments, storeReceived, type Upload } from './send-attachments.ts'
import { RpcFailure, userError } from '../rpc-failure.ts'
import type { ToyGroup } from '../state.ts'
import type { MethodContext, MethodDefinition } from './context.ts'
import { flagParam, listParam, numberParam, stringParam } from './params.ts'
import { resultEntry, settleSend, type SendResultEntry, type SendResultType } from './send-results.ts'
import { checkGroupId, findGroup, resolveRecipient } from './targets.ts'
import { refuseIfTerminated } from './group-terminate.ts'
import { failIfUnreachable } from './unreachable.ts'
import { checkMessageSize, contentBytes } from '../platform-limits.ts'

/** Where one send goes, after validation. */
export interface SendTargets {
  groups: ToyGroup[]
  recipients: string[]
}

/** Targets as given, checked for form only (`CommandUtil.getRecipientIdentifiers`): nothing looked up yet. */
export interface ParsedTargets {
  groupIds: string[]
  recipients: string[]
}

/** Reads targets' form: -1 `No recipients given`, `Invalid group id: …`, `Invalid phone number …`. */
export function parseTargets(ctx: MethodContext): ParsedTargets {
  const groupIds = listParam(ctx.params, 'groupId', 'groupIds')
  const raw = listParam(ctx.params, 'recipient', 'recipients')
  const noteToSelf = flagParam(ctx.params, 'noteToSelf')
  if (groupIds.length === 0 && raw.length === 0 && !noteToSelf) throw userError('No recipients given')
  const recipients = (noteToSelf ? [...raw, ctx.account] : raw).map((r) => resolveRecipient(ctx.state, r))
  return { groupIds: groupIds.map(checkGroupId), recipients: [...new Set(recipients)] }
}

/** Looks the parsed targets up: group and membership errors, unregistered direct recipients. */
export function lookUpTargets(ctx: MethodContext, parsed: ParsedTargets): SendTargets {
  const groups = parsed.groupIds.map((id) => {
    const group = findGroup(ctx.state, ctx.account, id)
    if (!group.members.includes(ctx.account) && !ctx.faults.takeNonMemberSend())
      throw userError(`User is not a member in group: ${group.name} (${group.id})`)
    refuseIfTerminated(group)
    return group
  })
  // Direct recipients are resolved up front, so an unknown one fails the whole call; group members
  // are already resolved and fail one by one (UNREGISTERED_FAILURE) instead.
  for (const number of parsed.recipients) {
    if (!ctx.state.isRegistered(number)) throw userError(`The user ${number} is not registered.`)
  }
  return { groups, recipients: parsed.recipients }
}

/** Reads, validates and looks up targets (`sendReaction`: nothing is checked between the two). */
export function readTargets(ctx: MethodContext): SendTargets {
  return lookUpTargets(ctx, parseTargets(ctx))
}

/**
 * Sends `content` to the targets: computes per-recipient results (unregistered group members, then
 * the identity and rate-limit faults), applies the all-failed rule, then delivers to every
 * successful local recipient plus the sync copy. The `failNextSendsWith` fault fails the whole call
 * first, as a server 413/429 does before anything is sent.
 */
export function sendToTargets(
  ctx: MethodContext,
  targets: SendTargets,
  build: (timestamp: number) => MessageContent,
  uploads: readonly Upload[] = [],
) {
  // Offline, a send to people alone fails per recipient (NETWORK_FAILURE, then -1 with the result),
  // as signal-cli's direct sends do; a group send fails as a whole below.
  if (ctx.faults.networkLost() && targets.groups.length === 0 && targets.recipients.length > 0)
    return settleSend(
      ctx.state.nextTimestamp(),
      targets.recipients.map((n) => resultEntry(ctx.state, n, 'NETWORK_FAILURE', {})),
    )
  failIfUnreachable(ctx, 'message')
  const sendError = ctx.faults.takeSendError(ctx.account)
  if (sendError !== undefined) throw new RpcFailure(sendError.code, sendError.message)
  const rateLimit = ctx.faults.takeRateLimit()
  const identity = ctx.faults.takeIdentityFailure(ctx.account)
  const timestamp = ctx.state.nextTimestamp()
  const content = build(timestamp)
  let limited = 0
  let untrusted = 0
  const typeFor = (number: string): SendResultType => {
    if (!ctx.state.isRegistered(number)) return 'UNREGISTERED_FAILURE'
    if (identity !== undefined && (identity === 'all-failed' || untrusted === 0)) {
      untrusted += 1
      return 'IDENTITY_FAILURE'
    }
    if (rateLimit !== undefined && (rateLimit.mode === 'all-failed' || limited === 0)) {
      limited += 1
      return 'RATE_LIMIT_FAILURE'
    }
    return 'SUCCESS'
  }
  const now = ctx.state.now()
  // What reaches each recipient's inbound byte budget: the text and the attachments' bytes.
  const bytes = Buffer.byteLength(content.message ?? '', 'utf8') + uploads.reduce((n, u) => n + u.data.length, 0)
  const paceFor = (number: string) => {
    const message = ctx.pace?.message(ctx.account, number, now)
    if (message !== undefined && !message.ok) return message
    return ctx.pace?.inboundBytes(number, bytes, now)
  }
  const entry = (number: string, groupId: string | undefined): SendResultEntry => {
    const type = typeFor(number)
    // Past Signal's pace for this pair or this recipient's bytes: a plain 429 (Retry-After, no
    // challenge token; 0.14.3+ shape).
    const paced = type === 'SUCCESS' ? paceFor(number) : undefined
    if (paced !== undefined && !paced.ok && ctx.pace?.enforced === true)
      return resultEntry(ctx.state, number, 'RATE_LIMIT_FAILURE', {
        groupId,
        retryAfterSeconds: paced.retryAfterSeconds,
        token: false,
      })
    return resultEntry(ctx.state, number, type, { groupId, retryAfterSeconds: rateLimit?.retryAfterSeconds })
  }
  const results: SendResultEntry[] = []
  for (const group of targets.groups) {
    for (const member of group.members) if (member !== ctx.account) results.push(entry(member, group.id))
  }
  for (const number of targets.recipients) results.push(entry(number, undefined))
  const response = settleSend(timestamp, results)

  const self = { number: ctx.account, uuid: ctx.state.uuidOf(ctx.account) }
  for (const group of targets.groups) {
    const inGroup: MessageContent = {
      ...content,
      group: { id: group.id, name: group.name, revision: group.revision, type: 'DELIVER' },
    }
    // The members' daemons ignore an admin delete from someone who is no admin (IncomingMessageHandler).
    const heeded = content.adminDelete === undefined || group.admins.has(ctx.account)
    for (const r of results) {
      if (!heeded) break
      if (r.groupId === group.id && r.type === 'SUCCESS' && ctx.state.isAccount(r.recipientAddress.number)) {
        storeReceived(ctx, r.recipientAddress.number, uploads)
        ctx.hub.deliver(incomingMessage(r.recipientAddress.number, self, inGroup, now))
      }
    }
    ctx.hub.deliver(sentMessageSync(self, undefined, inGroup, now))
  }
  for (const r of results) {
    const number = r.recipientAddress.number
    if (r.groupId !== undefined || r.type !== 'SUCCESS') continue
    if (number !== ctx.account && ctx.state.isAccount(number)) {
      storeReceived(ctx, number, uploads)
      ctx.hub.deliver(incomingMessage(number, self, content, now))
    }
    ctx.hub.deliver(sentMessageSync(self, { number, uuid: r.recipientAddress.uuid }, content, now))
  }
  return response
}

/** The `send` method. */
export const sendMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    // SendCommand's order: targets' form, the empty-message rule, the uploads, then the group lookup.
    const parsed = parseTargets(ctx)
    const message = stringParam(ctx.params, 'message')
    const attachments = listParam(ctx.params, 'attachment', 'attachments')
    const sticker = stringParam(ctx.params, 'sticker')
    const quote = numberParam(ctx.params, 'quoteTimestamp')
    if ((message ?? '') === '' && attachments.length === 0 && sticker === undefined && quote === undefined) {
      throw userError('Sending empty message is not allowed, either a message, attachment or sticker must be given.')
    }
    // Uploaded before the message goes: a refused upload sends nothing.
    if (attachments.length > 0) failIfUnreachable(ctx, 'upload')
    const uploads = uploadAttachments(ctx, attachments)
    const targets = lookUpTargets(ctx, parsed)
    checkMessageSize(
      contentBytes(message ?? '', uploads.length),
      targets.groups.map((g) => g.members.length - 1),
    )
    const longTextId = ctx.state.randomId(15)
    const response = sendToTargets(
      ctx,
      targets,
      (timestamp) => ({
        timestamp,
        message: message ?? null,
        longTextId,
        attachments: uploads.map((u) => ({ ...u.info, uploadTimestamp: timestamp })),
      }),
      uploads,
    )
    const text = message ?? ''
    // `--no-urgent` arrived in 0.14.0; older daemons drop params they do not know.
    const urgent = !(ctx.state.version.atLeast('0.14.0') && flagParam(ctx.params, 'noUrgent'))
    const attachmentBytes = uploads.reduce((n, u) => n + u.data.length, 0)
    const extra = uploads.length === 0 ? {} : { attachments: uploads.length, attachmentBytes }
    for (const group of targets.groups)
      ctx.state.recordSend({
        account: ctx.account,
        groupId: group.id,
        message: text,
        timestamp: response.timestamp,
        urgent,
        ...extra,
      })
    if (targets.recipients.length > 0) {
      ctx.state.recordSend({
        account: ctx.account,
        recipients: targets.recipients,
        message: text,
        timestamp: response.timestamp,
        urgent,
        ...extra,
      })
    }
    if (ctx.faults.takeSendDrop()) ctx.dropConnection()
    return response
  },
}
