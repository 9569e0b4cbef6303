/** Counts WebSocket messages and bytes seen by one client, by wrapping the `ws` constructor it uses. */
import { WebSocket, type RawData } from 'ws'

export class WireCounter {
  sentMessages = 0
  sentBytes = 0
  receivedMessages = 0
  receivedBytes = 0
  /** Called with every binary frame this client sends (e.g. to decode envelopes). */
  onSent: ((bytes: Uint8Array) => void) | undefined

  get messages(): number {
    return this.sentMessages + this.receivedMessages
  }
}

function byteLength(data: RawData | string | ArrayBufferView | ArrayBuffer): number {
  if (typeof data === 'string') return Buffer.byteLength(data)
  if (Array.isArray(data)) return data.reduce((sum, b) => sum + b.byteLength, 0)
  return data.byteLength
}

export type CountingWebSocketClass = new (address: string | URL, protocols?: string | string[]) => WebSocket

/** A `ws` WebSocket class whose instances report to `counter`. */
export function countingWebSocket(counter: WireCounter): CountingWebSocketClass {
  return class CountingWebSocket extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols)
      this.on('message', (data: RawData) => {
        counter.receivedMessages += 1
        counter.receivedBytes += byteLength(data)
      })
    }

    override send(data: unknown, options?: unknown, cb?: unknown): void {
      counter.sentMessages += 1
      const view = data as ArrayBufferView | ArrayBuffer | string
      counter.sentBytes += byteLength(view)
      if (counter.onSent !== undefined && ArrayBuffer.isView(view)) {
        counter.onSent(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
      }
      super.send(data as never, options as never, cb as never)
    }
  }
}
