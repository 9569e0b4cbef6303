/**
 * A browser page reduced to what the replica tests need, over a raw `ws` socket: a Y.Doc whose
 * local edits become `update` envelopes kept in an outbox until acknowledged, replayed with the
 * same message ids on every reconnect, followed by a `sync-request`; remote updates are applied,
 * and a `sync-request` from the sidecar is answered with the diff at once.
 */
import { decodeEnvelope, encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import { randomBytes, randomUUID } from 'node:crypto'
import { onTestFinished } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'

const REMOTE = Symbol('remote')

export class YBrowser {
  readonly doc = new Y.Doc()
  readonly senderId = randomUUID()
  readonly docId: string
  /** Unacknowledged local updates, by message id, in send order. */
  readonly outbox = new Map<string, Envelope>()
  readonly acked = new Set<string>()
  /** Every local update ever produced, by message id. */
  readonly updates = new Map<string, Envelope>()
  /** Every envelope received, for assertions. */
  readonly received: Envelope[] = []
  #ws: WebSocket | undefined
  #seq = 0
  #listeners = new Set<() => void>()

  constructor(docId: string) {
    this.docId = docId
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === REMOTE) return
      const env = this.#envelope('update', update)
      this.outbox.set(env.messageId, env)
      this.updates.set(env.messageId, env)
      this.#send(env)
    })
  }

  get text(): string {
    return this.doc.getText('t').toString()
  }

  /** Opens (or reopens) the socket: replays the outbox, then asks with its state vector. */
  async connect(sidecarUrl: string): Promise<void> {
    const ws = new WebSocket(`${sidecarUrl.replace('http', 'ws')}/v1/docs/${this.docId}`)
    onTestFinished(() => ws.terminate())
    ws.on('message', (data: Buffer) => this.#onFrame(decodeEnvelope(new Uint8Array(data))))
    ws.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    this.#ws = ws
    for (const env of this.outbox.values()) this.#send(env)
    this.#send(this.#envelope('sync-request', Y.encodeStateVector(this.doc)))
  }

  /** Resolves when the socket has closed (for whatever reason). */
  closed(): Promise<void> {
    const ws = this.#ws
    if (ws === undefined || ws.readyState === ws.CLOSED) return Promise.resolve()
    return new Promise((resolve) => ws.once('close', () => resolve()))
  }

  close(): void {
    this.#ws?.close()
    this.#ws = undefined
  }

  /** One local edit: appends `token` to the text. */
  edit(token: string): void {
    const t = this.doc.getText('t')
    t.insert(t.length, token)
  }

  /** Sends a non-document envelope (e.g. `health`) and returns it. */
  sendRaw(kind: Kind, payload: Uint8Array): Envelope {
    const env = this.#envelope(kind, payload)
    this.#send(env)
    return env
  }

  /** Resolves once `predicate` holds, re-checked after every received frame. */
  until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (predicate()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#listeners.delete(check)
        reject(new Error(`timed out; text is ${JSON.stringify(this.text.slice(0, 200))}, outbox ${this.outbox.size}`))
      }, timeoutMs)
      const check = () => {
        if (!predicate()) return
        clearTimeout(timer)
        this.#listeners.delete(check)
        resolve()
      }
      this.#listeners.add(check)
    })
  }

  #envelope(kind: Kind, payload: Uint8Array): Envelope {
    return {
      kind,
      flags: 0,
      docId: this.docId,
      senderId: this.senderId,
      messageId: randomBytes(16).toString('hex'),
      seq: this.#seq++,
      payload,
    }
  }

  #send(env: Envelope): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(encodeEnvelope(env))
  }

  #onFrame(env: Envelope): void {
    this.received.push(env)
    if (env.kind === 'ack') {
      this.outbox.delete(env.messageId)
      this.acked.add(env.messageId)
    } else if (env.kind === 'update' || env.kind === 'sync-response' || env.kind === 'snapshot') {
      Y.applyUpdate(this.doc, env.payload, REMOTE)
    } else if (env.kind === 'sync-request') {
      this.#send(this.#envelope('sync-response', Y.encodeStateAsUpdate(this.doc, env.payload)))
    }
    for (const l of this.#listeners) l()
  }
}

/** A page of `docId` connected to the sidecar at `url` (or at the URL a child's ready line gives). */
export async function pageOn(docId: string, url: string | Promise<string>): Promise<YBrowser> {
  const page = new YBrowser(docId)
  await page.connect(await url)
  return page
}
