/**
 * A request body as text, bounded: the documents API and the history API read their bodies so.
 */
import type { IncomingMessage } from 'node:http'
import { ApiError } from './api-error.ts'

/** The largest request body an API reads. */
export const MAX_BODY_BYTES = 16 * 1024

/** The request body as text, at most {@link MAX_BODY_BYTES}. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength
    if (size > MAX_BODY_BYTES)
      throw new ApiError('API_BODY_TOO_LARGE', `the request body is larger than ${MAX_BODY_BYTES} bytes`)
    parts.push(chunk)
  }
  return Buffer.concat(parts).toString('utf8')
}
