/**
 * `sendAdminDelete` (signal-cli 0.14.0+, SendAdminDeleteCommand): a group admin deletes another
 * member's message from every member's history. signal-cli sends it from anyone who is a member
 * (the sender is not checked); the members' daemons ignore one from a non-admin, so the toy
 * delivers it only when the sender is an admin. The answer is a send's `{timestamp, results}`.
 * A toy playing an older release answers -32601 (`since`, dispatch.ts), as the real 0.13.19 does.
 * Inferred, not measured (no 0.14.x daemon here): the wordings for a missing author or timestamp
 * follow `sendReaction`'s NullPointerException, which reads its parameters the same way.
 */
import { internalError, userError } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'
import { numberParam, stringParam } from './params.ts'
import { parseTargets, lookUpTargets, sendToTargets } from './send.ts'
import { resolveRecipient } from './targets.ts'

/** The first release with `sendAdminDelete`. */
export const ADMIN_DELETE_SINCE = '0.14.0'

export const sendAdminDeleteMethod: MethodDefinition = {
  routing: 'account',
  since: ADMIN_DELETE_SINCE,
  run(ctx) {
    const parsed = parseTargets(ctx)
    if (parsed.groupIds.length === 0) throw userError('Admin delete requires group IDs')
    const author = stringParam(ctx.params, 'targetAuthor')
    const targetTimestamp = numberParam(ctx.params, 'targetTimestamp')
    if (author === undefined)
      throw internalError(
        'Cannot invoke "String.startsWith(String)" because "identifier" is null',
        'NullPointerException',
      )
    if (targetTimestamp === undefined)
      throw internalError(
        'Cannot invoke "java.lang.Long.longValue()" because "targetTimestamp" is null',
        'NullPointerException',
      )
    const targetAuthor = resolveRecipient(ctx.state, author)
    const targets = lookUpTargets(ctx, { groupIds: parsed.groupIds, recipients: [] })
    const response = sendToTargets(ctx, targets, (timestamp) => ({
      timestamp,
      message: null,
      adminDelete: {
        targetAuthor,
        targetAuthorUuid: ctx.state.uuidOf(targetAuthor),
        targetSentTimestamp: targetTimestamp,
      },
      longTextId: '',
    }))
    for (const group of targets.groups)
      ctx.state.recordSend({
        account: ctx.account,
        groupId: group.id,
        message: '',
        timestamp: response.timestamp,
        urgent: true,
        adminDelete: { targetAuthor, targetSentTimestamp: targetTimestamp },
      })
    return response
  },
}
