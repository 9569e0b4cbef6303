/**
 * The events side of the daemon: open SSE streams, fan-out, and the bounded per-account queue for
 * accounts with no open stream (a real daemon in `--receive-mode on-connection` leaves those messages
 * on the Signal server until a stream connects).
 *
 * Wire framing, exactly as `ServerSentEventSender` writes it (no space after the colon):
 * ```
 * event:receive\ndata:{"envelope":{…},"account":"+…"}\n\n     one event
 * :\n                                                          keep-alive
 * ```
 * @see docs/daemon-contract.md §2
 */
import type { ServerResponse } from 'node:http'
import type { ReceivePayload } from './envelopes.ts'

/** Which accounts one stream carries: every local account, or one. */
export type StreamScope = { kind: 'all' } | { kind: 'account'; account: string }

/** Hooks the fault switches use to alter delivery. */
export interface DeliveryFaults {
  /** True when the next event must be written twice. */
  takeDuplicate(): boolean
}

/** Options of {@link createEventHub}. */
export interface EventHubOptions {
  keepAliveMs: number
  maxQueuedPerAccount: number
  faults: DeliveryFaults
  log: (line: string) => void
}

/** The live event streams and the queue behind them. */
export interface EventHub {
  /** Starts streaming on an accepted response: headers flushed at once (v0.14.4+), then queued events. */
  attach(res: ServerResponse, scope: StreamScope): void
  /** Delivers one event to every stream carrying its account, or queues it when none does. */
  deliver(payload: ReceivePayload): void
  /** Cuts every open stream now, or each one after it has written `afterEvents` more events. */
  cut(afterEvents?: number): void
  queued(account: string): number
  openStreams(): number
  close(): void
}

interface OpenStream {
  res: ServerResponse
  scope: StreamScope
  timer: NodeJS.Timeout
  cutAfter: number | undefined
}

/** Unread bytes one stream may hold before the toy cuts it as a stalled reader. */
export const MAX_UNREAD_BYTES = 8 * 1024 * 1024

function frame(payload: ReceivePayload): string {
  return `event:receive\ndata:${JSON.stringify(payload)}\n\n`
}

/** Creates the hub; nothing runs until a stream attaches. */
export function createEventHub(options: EventHubOptions): EventHub {
  const streams = new Set<OpenStream>()
  const pending: ReceivePayload[] = []
  const counts = new Map<string, number>()

  const covers = (stream: OpenStream, account: string): boolean =>
    stream.scope.kind === 'all' || stream.scope.account === account

  const drop = (stream: OpenStream): void => {
    if (!streams.delete(stream)) return
    clearInterval(stream.timer)
    stream.res.destroy()
  }

  const write = (stream: OpenStream, payload: ReceivePayload, line: string): void => {
    if (stream.res.writableLength > MAX_UNREAD_BYTES) {
      // A reader that stopped reading: cut it rather than buffer without limit; its account's
      // later events queue for the next stream.
      options.log(`events stream not read (over ${MAX_UNREAD_BYTES} bytes buffered): cut`)
      drop(stream)
      if (![...streams].some((s) => covers(s, payload.account))) enqueue(payload)
      return
    }
    if (stream.cutAfter === undefined || stream.cutAfter > 1) {
      stream.res.write(line)
      if (stream.cutAfter !== undefined) stream.cutAfter -= 1
      return
    }
    // The last event before a cut: leave the set now (later events queue), cut once it is flushed.
    streams.delete(stream)
    clearInterval(stream.timer)
    stream.res.write(line, () => stream.res.destroy())
  }

  const enqueue = (payload: ReceivePayload): void => {
    const count = (counts.get(payload.account) ?? 0) + 1
    pending.push(payload)
    counts.set(payload.account, count)
    if (count <= options.maxQueuedPerAccount) return
    // Bound reached: the oldest message of that account goes, like a server-side expiry.
    const oldest = pending.findIndex((p) => p.account === payload.account)
    pending.splice(oldest, 1)
    counts.set(payload.account, count - 1)
    options.log(`queue full for one account: dropped its oldest message (bound ${options.maxQueuedPerAccount})`)
  }

  const deliver = (payload: ReceivePayload): void => {
    const targets = [...streams].filter((s) => covers(s, payload.account))
    if (targets.length === 0) {
      enqueue(payload)
      return
    }
    const copies = options.faults.takeDuplicate() ? 2 : 1
    const line = frame(payload)
    for (const stream of targets) {
      for (let i = 0; i < copies && streams.has(stream); i += 1) write(stream, payload, line)
    }
  }

  return {
    attach(res, scope) {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.flushHeaders()
      const stream: OpenStream = {
        res,
        scope,
        cutAfter: undefined,
        timer: setInterval(() => res.write(':\n'), options.keepAliveMs),
      }
      stream.timer.unref()
      streams.add(stream)
      res.on('close', () => drop(stream))
      // Hand over what waited for this stream, in arrival order.
      const mine = pending.filter((p) => covers(stream, p.account))
      if (mine.length === 0) return
      for (let i = pending.length - 1; i >= 0; i -= 1) {
        const p = pending[i]
        if (p !== undefined && covers(stream, p.account)) pending.splice(i, 1)
      }
      for (const p of mine) counts.set(p.account, (counts.get(p.account) ?? 1) - 1)
      // deliver() queues again whatever arrives after a cut of this very stream.
      for (const p of mine) deliver(p)
    },
    deliver,
    cut(afterEvents) {
      for (const stream of streams) {
        if (afterEvents === undefined || afterEvents <= 0) drop(stream)
        else stream.cutAfter = afterEvents
      }
    },
    queued: (account) => counts.get(account) ?? 0,
    openStreams: () => streams.size,
    close() {
      for (const stream of streams) drop(stream)
    },
  }
}
