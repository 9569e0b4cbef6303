/**
 * A binding whose sidecar is scripted by the test, frame by frame: its sockets open, receive and
 * close only when told, its timers are a manual clock, and its storage is in memory (recording
 * every commit). The test reads back every envelope the binding put on the wire. For tests of how
 * connectDoc reacts to one frame or one event at a time.
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
type SidecarEnvelope = Partial<Envelope> & Pick<Envelope, 'kind' | 'payload'>

const FRAME_DEFAULTS = { flags: 0, docId: DOC_ID, senderId: SIDECAR_ID, messageId: 'ab'.repeat(16), seq: 0 }

/** An envelope as the sidecar would send it for this document, signed by the sidecar unless `senderId` says otherwise. */
export function sidecarFrame(envelope: SidecarEnvelope): Uint8Array {
  return encodeEnvelope({ ...FRAME_DEFAULTS, ...envelope })
}

/**
 * A socket that does only what the test says: nothing happens until it calls {@link open},
 * {@link receive}, {@link deliver} or {@link serverClose}. What the binding sends is kept, decoded.
 */
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

  /** The binding's own close: a closed socket stays quiet. */
  close(code = 1000, reason = ''): void {
    if (this.readyState === CLOSED) return
    this.serverClose(code, reason)
  }

  open(): void {
    this.readyState = OPEN
    this.#emit('open', {})
  }

  /** Raw bytes from the sidecar, decodable or not. */
  receive(frame: Uint8Array): void {
    this.#emit('message', { data: frame.slice().buffer })
  }

  /** An envelope the sidecar relays from a peer ({@link PEER_ID} unless `senderId` says otherwise). */
  deliver(envelope: SidecarEnvelope): void {
    this.receive(sidecarFrame({ senderId: PEER_ID, ...envelope }))
  }

  /** The sidecar closes the connection (reported each time, even on a closed socket). */
  serverClose(code: number, reason = ''): void {
    this.readyState = CLOSED
    this.#emit('close', { code, reason })
  }

  #emit(type: string, event: object): void {
    for (const l of this.#listeners.get(type) ?? []) (l as (e: object) => void)(event)
  }
}

/** A WebSocket constructor whose every socket is kept in `sockets`, in order of creation. */
export function scriptedSockets(): { WebSocket: WebSocketConstructor; sockets: ScriptedSocket[] } {
  const sockets: ScriptedSocket[] = []
  const WebSocket = function (url: string) {
    const socket = new ScriptedSocket(url)
    sockets.push(socket)
    return socket
  } as unknown as WebSocketConstructor
  return { WebSocket, sockets }
}

/** An `error` envelope's payload as the sidecar writes it. */
export function errorPayload(code: string, message: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ code, message }))
}

/** A Yjs update of a fresh document holding `text` (the tests' text is `t`). */
export function textUpdate(text: string, doc = new Y.Doc()): Uint8Array {
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

/** Lets promise chains (the storage write chain) run; memory storage resolves at once. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** `base` with every commit recorded, in order; while `failCommits.on`, commits fail instead. */
export function recordingStorage(base: ClientStorage = createMemoryStorage()): ClientStorage & {
  commits: StorageCommit[]
  failCommits: { on: boolean }
} {
  const commits: StorageCommit[] = []
  const failCommits = { on: false }
  return {
    ...base,
    commits,
    failCommits,
    commit: (change) => {
      if (failCommits.on) return Promise.reject(new Error('disk full'))
      commits.push(change)
      return base.commit(change)
    },
  }
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

/** Options over the fixture's; an option set to undefined falls back to connectDoc's own default. */
export type Overrides = { readonly [K in keyof ConnectDocOptions]?: ConnectDocOptions[K] | undefined }

export type ScriptedBinding = ReturnType<typeof bind>

function bind(extra: Overrides, base?: ClientStorage) {
  const timers = manualTimers()
  const { WebSocket, sockets } = scriptedSockets()
  const storage = recordingStorage(base)
  const doc = extra.doc ?? new Y.Doc()
  const options = {
    doc,
    sidecarUrl: 'ws://sidecar.test',
    docId: DOC_ID,
    storage,
    WebSocket,
    timers,
    lifecycle: null,
    syncResponseDelayMs: { min: 10, max: 10 },
    // Reconnects only when the test asks (reconnectNow).
    transport: { network: null, backoff: { baseMs: 600_000, maxMs: 600_000, factor: 1 } },
    ...extra,
  }
  const conn: DocConnection = connectDoc(options as ConnectDocOptions)
  const errors: ClientError[] = []
  const statuses: ClientStatus[] = []
  conn.on('error', (e) => errors.push(e))
  conn.on('status', (s) => statuses.push(s))
  /** The envelopes sent on every socket so far, of `kind` when given. */
  const sent = (kind?: Envelope['kind']): Envelope[] =>
    sockets.flatMap((s) => s.sent).filter((e) => kind === undefined || e.kind === kind)
  /** The socket the binding opened last. */
  const socket = (): ScriptedSocket => {
    const last = sockets.at(-1)
    if (last === undefined) throw new Error('the binding opened no socket yet')
    return last
  }
  return { conn, doc, text: doc.getText('t'), timers, storage, sockets, errors, statuses, sent, socket }
}

/**
 * Call once at the top of a test file: returns `open(extra, base)`, which binds a fresh document
 * (the defaults above, overridden by `extra`; its recorded storage over `base`), closed after each test.
 */
export function scriptedBindings(): { open(extra?: Overrides, base?: ClientStorage): ScriptedBinding } {
  const opened: DocConnection[] = []
  afterEach(async () => {
    for (const conn of opened.splice(0)) await conn.close()
  })
  return {
    open(extra = {}, base) {
      const binding = bind(extra, base)
      opened.push(binding.conn)
      return binding
    },
  }
}

/** Binds, loads and opens the first socket (the sidecar accepted the connection). */
export async function connected(
  open: (extra?: Overrides, base?: ClientStorage) => ScriptedBinding,
  extra: Overrides = {},
): Promise<ScriptedBinding> {
  const binding = open(extra)
  await binding.conn.ready
  binding.socket().open()
  await settle()
  return binding
}
