/**
 * Send and wait for the event: one member's stream is opened, another sends, and the case checks
 * the message its stream received (matched by the send's timestamp) while the stream is still open.
 * The raw way (HTTP probes, the daemon's own payload) and through the production client.
 */
import type { SendResult as ClientSendResult, SignalMessage } from '@e2e-col/signal-cli'
import { openClientEvents, type ClientDaemon, type ClientEvents } from '../client-probe.ts'
import { openEvents, settled, type ReceivedEvent, type SseProbe } from '../sse-probe.ts'
import { withOpen } from '../with-open.ts'
import { sendAs, type SendResult } from './send.ts'

/** A raw round trip: the receiver's stream, the send's result, the event that carried it. */
export interface RawRoundTrip {
  probe: SseProbe
  sent: SendResult
  received: ReceivedEvent
  /** The envelope's `dataMessage` (what the sender wrote, as the receiver sees it). */
  data: Record<string, unknown>
}

/**
 * Opens `to`'s stream on `url`, lets it settle, sends `params` as `from` (`send`), waits for that
 * message on the stream and runs `check`.
 */
export function sendAndReceive<T>(
  url: string,
  from: string,
  to: string,
  params: Record<string, unknown>,
  check: (trip: RawRoundTrip) => T | Promise<T>,
): Promise<T> {
  return withOpen(openEvents(url, to), async (probe) => {
    await settled(probe)
    const sent = await sendAs(url, from, params)
    const received = await probe.waitFor((e) => e.json.envelope['timestamp'] === sent.timestamp)
    const data = received.json.envelope['dataMessage'] as Record<string, unknown>
    return check({ probe, sent, received, data })
  })
}

/** A round trip through the production client: the receiver's stream, the send's result, the message read. */
export interface ClientRoundTrip {
  stream: ClientEvents
  sent: ClientSendResult
  event: SignalMessage
}

/** What one client round trip sends: `body` (and `attachments`) from `from` to `groupId`, read by `to`. */
export interface ClientSend {
  from: string
  to: string
  groupId: string
  body: string
  attachments?: readonly string[]
}

/**
 * Opens `to`'s stream through the client, sends the group message as `from`, waits for it on the
 * stream and runs `check`.
 */
export function sendAndReceiveViaClient<T>(
  c: ClientDaemon,
  send: ClientSend,
  check: (trip: ClientRoundTrip) => T | Promise<T>,
): Promise<T> {
  return withOpen(openClientEvents(c, send.to), async (stream) => {
    const sent = await c.backend(send.from).sendGroupMessage(send.groupId, send.body, send.attachments)
    const event = await stream.waitFor((e) => e.type === 'message' && e.timestamp === sent.timestamp)
    return check({ stream, sent, event: event as SignalMessage })
  })
}
