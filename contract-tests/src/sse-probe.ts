/**
 * An events-stream reader for contract cases: keeps the raw text (to check the exact framing) and
 * the parsed `receive` events (through eventsource-parser, as a client would read them).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { request } from 'undici'
import { waiters } from './waiters.ts'

/** One parsed event plus its `data` JSON. */
export interface ReceivedEvent {
  event: string | undefined
  data: string
  json: { envelope: Record<string, unknown>; account: string; [key: string]: unknown }
}

/** An open (or opening) events stream. */
export interface SseProbe {
  /** Resolves with status and headers once the daemon sends them (0.13.x holds them until the first write). */
  readonly response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; at: number }>
  readonly raw: () => string
  readonly events: ReceivedEvent[]
  /** Resolves with the first event (already received or future) that matches. */
  waitFor(match: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>
  /** Resolves once the raw text satisfies `match`. */
  waitForRaw(match: (raw: string) => boolean, timeoutMs?: number): Promise<string>
  /** Resolves when the daemon ends or cuts the stream. */
  readonly ended: Promise<void>
  close(): void
}

/** Opens `GET /api/v1/events[?account=…]` without waiting for headers. */
export function openEvents(baseUrl: string, account?: string): SseProbe {
  const controller = new AbortController()
  const url = new URL('/api/v1/events', baseUrl)
  if (account !== undefined) url.search = `account=${encodeURIComponent(account)}`
  let raw = ''
  const events: ReceivedEvent[] = []
  const pending = waiters()
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      events.push({ event: message.event, data: message.data, json: JSON.parse(message.data) as ReceivedEvent['json'] })
    },
  })
  let endedResolve: (() => void) | undefined
  const ended = new Promise<void>((resolve) => {
    endedResolve = resolve
  })
  const started = Date.now()
  const response = request(url, {
    method: 'GET',
    signal: controller.signal,
    headersTimeout: 40_000,
    bodyTimeout: 0,
  }).then((res) => {
    void (async () => {
      try {
        for await (const chunk of res.body) {
          const text = (chunk as Buffer).toString('utf8')
          raw += text
          parser.feed(text)
          pending.notify()
        }
      } catch {
        // a cut or an abort: both simply end the stream for the reader
      } finally {
        endedResolve?.()
        pending.notify()
      }
    })()
    return { status: res.statusCode, headers: res.headers, at: Date.now() - started }
  })
  response.catch(() => endedResolve?.())

  const wait = <T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    pending.wait(
      probe,
      timeoutMs,
      () => `timed out after ${timeoutMs} ms waiting for ${what}; raw so far: ${JSON.stringify(raw.slice(-300))}`,
    )

  return {
    response,
    raw: () => raw,
    events,
    waitFor: (match, timeoutMs = 10_000) => wait(() => events.find(match), timeoutMs, 'an event'),
    waitForRaw: (match, timeoutMs = 10_000) => wait(() => (match(raw) ? raw : undefined), timeoutMs, 'stream text'),
    ended,
    close: () => controller.abort(),
  }
}

/** Lets a 0.13.x daemon register the streams even though it sends no headers yet (1 s at most). */
export async function settled(...probes: readonly SseProbe[]): Promise<void> {
  await Promise.race([Promise.all(probes.map((p) => p.response)), new Promise((resolve) => setTimeout(resolve, 1_000))])
}
