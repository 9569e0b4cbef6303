/**
 * `getAttachment` (`GetAttachmentCommand`): an attachment this account received, by `id`, as
 * `{"data": base64}`. `groupId`/`recipient` are required on the command line only (argparse); over
 * JSON-RPC they are not checked. Unknown id: -1 `Could not find attachment with ID: <id>`; no id:
 * -1 `Missing attachment id parameter` from 0.14.0, before it -32603 `null (NullPointerException)`;
 * the id is sanitized first, so no path escapes.
 * @see signal-cli `GetAttachmentCommand`, `AttachmentStore.retrieveAttachment`
 */
import { sanitizeAttachmentId } from '../attachments.ts'
import { internalError, userError } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'
import { stringParam } from './params.ts'

export const getAttachmentMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const id = stringParam(ctx.params, 'id')
    if (id === undefined) {
      if (!ctx.state.version.atLeast('0.14.0')) throw internalError('null', 'NullPointerException')
      throw userError('Missing attachment id parameter')
    }
    const data = ctx.attachments.get(ctx.account, sanitizeAttachmentId(id))
    if (data === undefined) throw userError(`Could not find attachment with ID: ${id}`)
    return { data: data.toString('base64') }
  },
}
