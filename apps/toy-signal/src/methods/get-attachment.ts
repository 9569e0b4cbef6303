/**
 * `getAttachment` (`GetAttachmentCommand`): an attachment this account received, by `id`, as
 * `{"data": base64}`. `groupId`/`recipient` are required on the command line only (argparse); over
 * JSON-RPC they are not checked. Unknown id: -1 `Could not find attachment with ID: <id>`; no id:
 * -1 `Missing attachment id parameter` (0.14.x); the id is sanitized first, so no path escapes.
 * @see signal-cli `GetAttachmentCommand`, `AttachmentStore.retrieveAttachment`
 */
import { sanitizeAttachmentId } from '../attachments.ts'
import { userError } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'
import { stringParam } from './params.ts'

export const getAttachmentMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const id = stringParam(ctx.params, 'id')
    if (id === undefined) throw userError('Missing attachment id parameter')
    const data = ctx.attachments.get(ctx.account, sanitizeAttachmentId(id))
    if (data === undefined) throw userError(`Could not find attachment with ID: ${id}`)
    return { data: data.toString('base64') }
  },
}
