/**
 * `sendReaction` and `sendMessageRequestResponse`.
 * @see reference `signal-cli-wire.md` §4.5
 */
import { internalError } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'
import { flagParam, numberParam, stringParam } from './params.ts'
import { parseTargets, readTargets, sendToTargets } from './send.ts'
import { resolveRecipient } from './targets.ts'

/** `sendReaction`: a `dataMessage.reaction` to the targets, with the send result shape. */
export const sendReactionMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const targets = readTargets(ctx)
    const emoji = stringParam(ctx.params, 'emoji')
    const author = stringParam(ctx.params, 'targetAuthor')
    const targetTimestamp = numberParam(ctx.params, 'targetTimestamp')
    if (emoji === undefined)
      throw internalError('Cannot invoke "String.length()" because "emoji" is null', 'NullPointerException')
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
    const isRemove = flagParam(ctx.params, 'remove')
    return sendToTargets(ctx, targets, (timestamp) => ({
      timestamp,
      message: null,
      reaction: {
        emoji,
        targetAuthor,
        targetAuthorUuid: ctx.state.uuidOf(targetAuthor),
        targetSentTimestamp: targetTimestamp,
        isRemove,
      },
      longTextId: '',
    }))
  },
}

/**
 * `sendMessageRequestResponse`: `{}`; `type` is accept or delete, case-insensitive, and is read
 * before the targets. The targets are checked for form only: the real daemon answers `{}` for a
 * group it does not hold (it only syncs the answer to its other devices).
 */
export const sendMessageRequestResponseMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const type = stringParam(ctx.params, 'type')
    if (type === undefined)
      throw internalError('Cannot invoke "String.toUpperCase()" because "typeObj" is null', 'NullPointerException')
    if (!['ACCEPT', 'DELETE'].includes(type.toUpperCase())) {
      throw internalError(
        `No enum constant org.asamk.signal.commands.MessageRequestResponseType.${type.toUpperCase()}`,
        'IllegalArgumentException',
      )
    }
    parseTargets(ctx)
    return {}
  },
}
