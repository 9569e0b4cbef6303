/**
 * A binding whose sidecar is scripted by the test, frame by frame: its sockets open, receive and
 * close only when told, its timers are a manual clock, and its storage is in memory (recording
 * every commit). For tests of how connectDoc reacts to one frame or one event at a time.
 */
import { decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { manualTimers } from '@e2e-col/sync/testing'
import type { WebSocketConstructor, WebSocketLike } from '@e2e-col/transport'
import * as Y from 'yjs'
import { afterEach } from 'vitest'
import {
  connectDoc,
  createMemoryStorage,
  type ClientError,
  type ClientStatus,
  type ClientStorage,
  type ConnectDocOptions,
  type DocConnection,
  type StorageCommit,
} from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'

const OPEN = 1
const CLOSED = 3
/** The sender id the scripted sidecar signs its own envelopes with. */
export const SIDECAR_ID = '33333333-3333-4333-8333-333333333333'
/** A peer of the document (another page, through Signal). */
export const PEER_ID = '22222222-2222-4222-8222-222222222222'

type Listener = (event: never) => void

/** A socket that does only what the test says; what the binding sends is kept, decoded. */
export class ScriptedSocket implements WebSocketLike {
  binaryType = 'arraybuffer'
  readyState = 0
  readonly sent: Envelope[] = []
  readonly url: string
  readonly #listeners = new Map<string, Listener[]>()

  constructor(url: string) {
    this.url = url
  }

  addEventListener(type: string, listener: Listener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener])
  }

  send(data: Uint8Array): void {
    if (this.readyState !== OPEN) throw new Error('socket not open')
    this.sent.push(decodeEnvelope(data))
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState === CLOSED) return
    this.readyState = CLOSED
    this.#emit('close', { code, reason })
  }

  open(): void {
    this.readyState = OPEN
    this.#emit('open', {})
  }

  /** A frame from the sidecar. */
  deliver(envelope: Partial<Envelope> & Pick<Envelope, 'kind' | 'payload'>): void {
    const bytes = encodeEnvelope({
      flags: 0,
      docId: DOC_ID,
      senderId: PEER_ID,
      messageId: 'ab'.repeat(16),
      seq: 0,
      ...envelope,
    })
    this.#emit('message', { data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })
  }

  #emit(type: string, event: object): void {
    for (const l of this.#listeners.get(type) ?? []) (l as (e: object) => void)(event)
  }
}

/** An `error` envelope's payload as the sidecar writes it. */
export function errorPayload(code: string, message: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ code, message }))
}

/** A Yjs update holding `text` in `t`, written by a document of its own. */
export function updateWith(text: string): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

/** Lets promise chains (the storage write chain) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 8; i++) await new Promise((resolve) => setImmediate(resolve))
}

const opened: DocConnection[] = []
afterEach(async () => {
  for (const conn of opened.splice(0)) await conn.close()
})

/** Storage in memory whose commits are recorded (and may be made to fail). */
export function recordingStorage(base: ClientStorage = createMemoryStorage()): {
  storage: ClientStorage
  commits: StorageCommit[]
  failCommits: { on: boolean }
} {
  const commits: StorageCommit[] = []
  const failCommits = { on: false }
  const storage: ClientStorage = {
    senderId: () => base.senderId(),
    load: () => base.load(),
    commit: (change) => {
      if (failCommits.on) return Promise.reject(new Error('disk full'))
      commits.push(change)
      return base.commit(change)
    },
    ...(base.rescue === undefined ? {} : { rescue: base.rescue }),
  }
  return { storage, commits, failCommits }
}

/** Memory storage whose load waits until `release()`. */
export function slowLoading(base: ClientStorage = createMemoryStorage()): {
  storage: ClientStorage
  release: () => void
} {
  const gate: { open?: () => void } = {}
  const loadable = new Promise<void>((resolve) => {
    gate.open = resolve
  })
  return {
    storage: {
      ...base,
      load: async () => {
        await loadable
        return base.load()
      },
    },
    release: () => gate.open?.(),
  }
}

/** A binding on a scripted sidecar; closed after the test. Sockets are opened by the test. */
export function scriptedBinding(extra: Partial<ConnectDocOptions> = {}, base?: ClientStorage) {
  const timers = manualTimers()
  const sockets: ScriptedSocket[] = []
  const WebSocket = function (url: string) {
    const socket = new ScriptedSocket(url)
    sockets.push(socket)
    return socket
  } as unknown as WebSocketConstructor
  const recorded = recordingStorage(base)
  const doc = extra.doc ?? new Y.Doc()
  const conn = connectDoc({
    doc,
    sidecarUrl: 'ws://127.0.0.1:9',
    docId: DOC_ID,
    storage: recorded.storage,
    WebSocket,
    timers,
    lifecycle: null,
    syncResponseDelayMs: { min: 10, max: 10 },
    transport: { network: null },
    ...extra,
  })
  opened.push(conn)
  const errors: ClientError[] = []
  const statuses: ClientStatus[] = []
  conn.on('error', (error) => errors.push(error))
  conn.on('status', (status) => statuses.push(status))
  /** The socket the binding opened last. */
  const socket = (): ScriptedSocket => {
    const last = sockets.at(-1)
    if (last === undefined) throw new Error('the binding opened no socket yet')
    return last
  }
  /** Waits for the load, then opens the binding's socket. */
  const connect = async (): Promise<ScriptedSocket> => {
    await conn.ready
    socket().open()
    return socket()
  }
  return { ...recorded, conn, doc, text: doc.getText('t'), timers, sockets, socket, connect, errors, statuses }
}
