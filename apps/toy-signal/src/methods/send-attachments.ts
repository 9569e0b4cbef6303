/**
 * The attachment half of `send`: each `attachment` is decoded as a data URI (a path cannot be read:
 * the toy keeps no files, so it fails as a missing file does), checked against the size limit and
 * Signal's `attachmentCreate` pace, and kept for every local account that receives the message.
 * @see attachments.ts, reference `signal-cli-wire.md` §4.1, §9
 */
import { attachmentId, parseDataUri, type AttachmentInfo } from '../attachments.ts'
import type { MethodContext } from './context.ts'
import { internalError } from '../rpc-failure.ts'

/** One uploaded attachment: what receive events show, and its bytes. */
export interface Upload {
  info: Omit<AttachmentInfo, 'uploadTimestamp'>
  data: Buffer
}

/**
 * Uploads every attachment of a send, in order.
 * @throws RpcFailure -32603 as signal-cli reports a missing file (`AttachmentInvalidException`), a
 *   server 429 on upload (`RateLimitException`) or a refused size.
 */
export function uploadAttachments(ctx: MethodContext, values: readonly string[]): Upload[] {
  const uploads: Upload[] = []
  for (const value of values) {
    const uri = parseDataUri(value)
    // signal-cli tries a text that is no data URI as a file path (FileInputStream's message).
    if (uri === undefined)
      throw internalError(
        `Failed to send message: ${value}: ${value} (No such file or directory) (AttachmentInvalidException)`,
        'UnexpectedErrorException',
      )
    if (uri.data.length > ctx.maxAttachmentBytes) {
      throw internalError(
        `Failed to send message: [413] Request Entity Too Large: attachment of ${uri.data.length} bytes (NonSuccessfulResponseCodeException)`,
        'UnexpectedErrorException',
      )
    }
    const paced = ctx.pace?.attachment(ctx.account, ctx.state.now())
    if (paced !== undefined && !paced.ok && ctx.pace?.enforced === true)
      throw internalError(
        'Failed to send message: [429] Rate limit exceeded: 429 (RateLimitException)',
        'UnexpectedErrorException',
      )
    const id = attachmentId(ctx.state.randomId(15), uri.filename, uri.mediaType)
    uploads.push({
      info: {
        contentType: uri.mediaType,
        filename: uri.filename ?? null,
        id,
        size: uri.data.length,
        width: null,
        height: null,
        caption: null,
      },
      data: uri.data,
    })
  }
  return uploads
}

/** Keeps a send's attachments for one receiving account (signal-cli downloads them on receipt). */
export function storeReceived(ctx: MethodContext, account: string, uploads: readonly Upload[]): void {
  for (const u of uploads) {
    const spoil = ctx.faults.takeAttachmentSpoil()
    if (spoil === 'lose') continue
    const data = spoil === 'corrupt' ? Buffer.from(u.data) : u.data
    if (spoil === 'corrupt' && data.length > 0) data[data.length >> 1] = (data[data.length >> 1] ?? 0) ^ 0xff
    ctx.attachments.put(account, u.info.id, data)
  }
}
