/**
 * Turns the bytes of signal-cli's `GET /api/v1/events` into {@link SignalEvent}s with
 * eventsource-parser: `event:receive` (or unnamed) events are parsed, comments (the daemon's `:`
 * keep-alive) are ignored, other event names and unreadable data are reported as skips.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import { createParser } from 'eventsource-parser'
import type { SignalEvent } from './backend.ts'
import { parseReceivePayload } from './receive-payload.ts'

/** Largest single SSE event kept in memory; a longer one is dropped and counted as malformed. */
export const MAX_SSE_EVENT_BYTES = 8 * 1024 * 1024

/** Parses an SSE byte stream lazily; ends when the byte stream ends. */
export async function* readSignalEvents(
  bytes: AsyncIterable<Uint8Array>,
  account: string | undefined,
): AsyncGenerator<SignalEvent> {
  const pending: SignalEvent[] = []
  const parser = createParser({
    maxBufferSize: MAX_SSE_EVENT_BYTES,
    onEvent: (e) => {
      if (e.event !== undefined && e.event !== 'receive') pending.push({ type: 'skipped', reason: 'unrelated-event' })
      else pending.push(parseReceivePayload(e.data, account))
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') pending.push({ type: 'skipped', reason: 'malformed' })
    },
  })
  const decoder = new TextDecoder()
  for await (const chunk of bytes) {
    parser.feed(decoder.decode(chunk, { stream: true }))
    yield* pending.splice(0)
  }
  parser.feed(decoder.decode())
  yield* pending.splice(0)
}
