/**
 * A browser page of the soak: `connectDoc` over `ws` with IndexedDB from fake-indexeddb, whose
 * socket counts every envelope the sidecar delivers per (sender, message id). A reload closes the
 * binding and opens a new one on a fresh Y.Doc over the same stored outbox and checkpoint.
 */
import 'fake-indexeddb/auto'
import { connectDoc, createIndexedDbStorage, type DocConnection } from '@e2e-col/client'
import { decodeEnvelope } from '@e2e-col/protocol'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import * as Y from 'yjs'

/** Kinds that are deliveries of a peer's message (ack and error are the sidecar's answers). */
const DELIVERED = new Set(['update', 'sync-request', 'sync-response', 'snapshot', 'awareness', 'health'])

export interface DeliveryLog {
  /** (sender/messageId) → times delivered. */
  readonly counts: Map<string, number>
  /** Keys delivered more than once. */
  duplicates(): string[]
  /** Kind of each key delivered. */
  readonly kinds: Map<string, string>
}

function countingWebSocket(log: Map<string, number>, kinds: Map<string, string>): WebSocketConstructor {
  class CountingWebSocket extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols)
      this.addEventListener('message', (event) => {
        const data = event.data
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data instanceof Uint8Array ? data : undefined
        if (bytes === undefined) return
        try {
          const env = decodeEnvelope(bytes)
          if (!DELIVERED.has(env.kind)) return
          const key = `${env.senderId}/${env.messageId}`
          log.set(key, (log.get(key) ?? 0) + 1)
          kinds.set(key, env.kind)
        } catch {
          // The binding reports undecodable frames itself.
        }
      })
    }
  }
  return CountingWebSocket as unknown as WebSocketConstructor
}

export class Page {
  readonly name: string
  readonly deliveries: DeliveryLog
  doc = new Y.Doc()
  conn: DocConnection
  reloads = 0
  errors: string[] = []
  readonly #prefix: string
  readonly #url: () => string
  readonly #docId: string
  readonly #WebSocket: WebSocketConstructor

  constructor(name: string, docId: string, url: () => string, prefix: string) {
    this.name = name
    this.#docId = docId
    this.#url = url
    this.#prefix = prefix
    const counts = new Map<string, number>()
    const kinds = new Map<string, string>()
    this.deliveries = { counts, kinds, duplicates: () => [...counts].filter(([, n]) => n > 1).map(([k]) => k) }
    this.#WebSocket = countingWebSocket(counts, kinds)
    this.conn = this.#open()
  }

  get text(): string {
    return this.doc.getText('t').toString()
  }

  /** A reload: the binding closes (as on page hide) and a new page loads the same IndexedDB. */
  async reload(): Promise<void> {
    await this.conn.close()
    this.doc.destroy()
    this.doc = new Y.Doc()
    this.reloads += 1
    this.conn = this.#open()
    await this.conn.ready
  }

  async close(): Promise<void> {
    await this.conn.close()
  }

  #open(): DocConnection {
    const conn = connectDoc({
      doc: this.doc,
      sidecarUrl: this.#url(),
      docId: this.#docId,
      storage: createIndexedDbStorage(this.#docId, { prefix: this.#prefix }),
      WebSocket: this.#WebSocket,
      lifecycle: null,
      flushWindowMs: 20,
      checkpointDelayMs: 200,
      syncResponseDelayMs: { min: 5, max: 50 },
      transport: { backoff: { baseMs: 20, maxMs: 300, factor: 2 }, network: null, stableAfterMs: 200 },
    })
    conn.on('error', (e) => {
      if (this.errors.length < 50) this.errors.push(`${e.code}: ${e.message}`)
    })
    return conn
  }
}
