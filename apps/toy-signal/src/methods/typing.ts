/**
 * `sendTyping` (`SendTypingCommand`): a typing indicator to recipients or groups, answered with the
 * send result shape. Group errors are -1 `Failed to send to group: …`, a network failure -1
 * `Failed to send message: …` (not -32603 as for `send`). The toy answers but delivers no
 * `typingMessage`: nothing in e2e-col reads one.
 * @see AsamK/signal-cli `SendTypingCommand`, `ManagerImpl.sendTypingMessage`
 */
import { userError } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'
import { listParam } from './params.ts'
import { resultEntry, settleSend, type SendResultEntry } from './send-results.ts'
import { checkGroupId, findGroup, resolveRecipient } from './targets.ts'
import { failTypingIfUnreachable } from './unreachable.ts'

export const sendTypingMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const recipients = listParam(ctx.params, 'recipient', 'recipients').map((r) => resolveRecipient(ctx.state, r))
    const groupIds = listParam(ctx.params, 'groupId', 'groupIds').map(checkGroupId)
    if (recipients.length === 0 && groupIds.length === 0) throw userError('No recipients given')
    const groups = groupIds.map((id) => {
      try {
        const group = findGroup(ctx.state, ctx.account, id)
        if (!group.members.includes(ctx.account))
          throw userError(`User is not a member in group: ${group.name} (${group.id})`)
        return group
      } catch (error) {
        throw userError(`Failed to send to group: ${error instanceof Error ? error.message : String(error)}`)
      }
    })
    failTypingIfUnreachable(ctx)
    const timestamp = ctx.state.nextTimestamp()
    const entry = (number: string, groupId: string | undefined): SendResultEntry =>
      resultEntry(ctx.state, number, ctx.state.isRegistered(number) ? 'SUCCESS' : 'UNREGISTERED_FAILURE', { groupId })
    const results = [
      ...groups.flatMap((g) => g.members.filter((m) => m !== ctx.account).map((m) => entry(m, g.id))),
      ...recipients.map((r) => entry(r, undefined)),
    ]
    return settleSend(timestamp, results)
  },
}
