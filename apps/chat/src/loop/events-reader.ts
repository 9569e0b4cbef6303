/**
 * The events reader: keeps one events stream open to the daemon, hands each message on in order,
 * and reconnects with the daemon's backoff when the stream ends or breaks. It stops when `life`
 * aborts, and ends the chat when the account is not linked or the retry budget is spent.
 */
import { asChatError } from '../errors.ts'
import { EXIT_CODES, type ExitCode } from '../exit-codes.ts'
import type { ChatSignal, InboundMessage } from '../signal/port.ts'
import { pause } from '../backoff.ts'
import type { Observe } from './chat-events.ts'
import type { DaemonHealth } from '../signal/daemon-health.ts'
import type { LoopContext } from './loop-context.ts'
import { formatDuration } from './messages.ts'

export interface EventsReaderOptions extends LoopContext {
  signal: ChatSignal
  health: DaemonHealth
  observe: Observe
  /** One message; awaited before the next is read. A throw goes to `onError`. */
  onMessage(msg: InboundMessage): Promise<void>
  /** The stream cannot be kept: end the chat with this code. */
  onFatal(code: ExitCode, why: string): void
}

/** Reads until `life` aborts or a fatal condition; resolves then. */
export async function readEvents(o: EventsReaderOptions): Promise<void> {
  while (!o.life.aborted) {
    let what = 'events stream ended'
    try {
      const stream = await o.signal.openEvents(o.life)
      o.health.succeeded()
      await o.observe({ type: 'events-connected' })
      for await (const msg of stream) {
        await o.onMessage(msg).catch((err: unknown) => o.onError('message handling', err))
      }
    } catch (err) {
      if (o.life.aborted) return
      if (asChatError(err)?.code === 'CHAT_NOT_LINKED') return o.onFatal(EXIT_CODES.setup, (err as Error).message)
      what = err instanceof Error ? err.message : String(err)
    }
    if (o.life.aborted) return
    let delay: number
    try {
      delay = o.health.failed(what)
    } catch (err) {
      return o.onFatal(EXIT_CODES.daemonLost, (err as Error).message)
    }
    o.log(`lost the events stream (${what}); reconnecting in ${formatDuration(delay)}`)
    await pause(delay, o.life)
  }
}
