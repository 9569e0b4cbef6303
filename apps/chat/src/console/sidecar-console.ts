/**
 * The {@link ConsolePort} of a loop attached to its local sidecar: one WebSocket to
 * `/v1/chats/<chatId>/loop?group=<groupId>` (a privileged local client: no Origin, loopback).
 * The sidecar relays admitted browsers' `chat-prompt` / `chat-control` frames here and this
 * port's `chat-*` frames to every browser of the chat. A lost link is retried with backoff; what
 * the loop emits meanwhile is not kept (consoles then see the group's text lifted by the sidecar).
 * @see docs/sidecar.md §4.9
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { WebSocket, type RawData } from 'ws'
import { backoffDelay } from '../backoff.ts'
import {
  chatIdForGroup,
  consoleInputFromFrame,
  frameFromConsoleOutput,
  MAX_CONSOLE_PROMPT_CHARS,
  type LoopHeader,
} from './chat-envelopes.ts'
import type { ConsolePort } from './console-port.ts'
import { createInputQueue } from './input-queue.ts'

export interface SidecarConsoleOptions {
  /** The sidecar's base URL, e.g. `ws://127.0.0.1:7600`. */
  url: URL
  groupId: string
  log(line: string): void
  backoff: { baseMs: number; maxMs: number }
  /** Told each time the link is (re)established. */
  onAttached?: () => void
}

export interface SidecarConsole extends ConsolePort {
  readonly chatId: string
  /** Closes the link (after what was emitted is flushed) and stops reconnecting. */
  close(): Promise<void>
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data))
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

export function connectSidecarConsole(o: SidecarConsoleOptions): SidecarConsole {
  const chatId = chatIdForGroup(o.groupId)
  const target = new URL(`/v1/chats/${chatId}/loop`, o.url)
  target.searchParams.set('group', o.groupId)
  let seq = 0
  const header: LoopHeader = {
    chatId,
    senderId: randomUUID(),
    nextSeq: () => seq++,
    newMessageId: () => randomBytes(16).toString('hex'),
  }
  const queue = createInputQueue()
  let socket: WebSocket | undefined
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let attempt = 0

  function open(): void {
    const ws = new WebSocket(target, { perMessageDeflate: false, maxPayload: MAX_CONSOLE_PROMPT_CHARS * 4 + 1024 })
    socket = ws
    ws.on('open', () => {
      attempt = 0
      o.log(`browser consoles: attached to the sidecar as chat ${chatId}`)
      o.onAttached?.()
    })
    ws.on('unexpected-response', (_req, res) => {
      o.log(`browser consoles: the sidecar refused the chat loop (HTTP ${res.statusCode ?? '?'})`)
      ws.terminate()
    })
    ws.on('error', () => undefined) // followed by close, which reconnects
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return
      try {
        queue.push(consoleInputFromFrame(toBytes(data), chatId))
      } catch (err) {
        o.log(`browser consoles: ignored a frame (${(err as Error).message})`)
      }
    })
    ws.on('close', () => {
      if (socket === ws) socket = undefined
      if (closed) return
      const delay = backoffDelay(attempt++, o.backoff)
      timer = setTimeout(open, delay)
    })
  }
  open()

  return {
    chatId,
    emit(out) {
      if (socket?.readyState !== WebSocket.OPEN) return
      socket.send(frameFromConsoleOutput(out, header), { binary: true })
    },
    inputs: (signal) => queue.read(signal),
    async close() {
      closed = true
      clearTimeout(timer)
      queue.close()
      const ws = socket
      if (ws === undefined || ws.readyState === WebSocket.CLOSED) return
      await new Promise<void>((resolve) => {
        const bound = setTimeout(() => {
          ws.terminate()
          resolve()
        }, 2000)
        ws.once('close', () => {
          clearTimeout(bound)
          resolve()
        })
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate()
        else ws.close(1000, 'chat ended')
      })
    },
  }
}
