/**
 * A binding on a manual clock over scripted sockets: the test plays the sidecar frame by frame
 * (opens, closes, what arrives) and reads back every envelope the binding put on the wire.
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

export const SIDECAR_ID = '22222222-2222-4222-8222-222222222222'

type Listener = (event: unknown) => void

/** A WebSocket the test drives: nothing happens until it calls {@link open}, {@link receive} or {@link serverClose}. */
export class ScriptedSocket implements WebSocketLike {
  binaryType = 'blob'
  readyState = 0
  readonly sent: Envelope[] = []
  readonly #listeners = new Map<string, Listener[]>()

  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: never) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener as Listener])
  }

  send(data: Uint8Array): void {
    this.sent.push(decodeEnvelope(data))
  }

  close(): void {
    this.readyState = 3
  }

  open(): void {
    this.readyState = 1
    this.#emit('open', {})
  }

  receive(frame: Uint8Array): void {
    this.#emit('message', { data: frame.slice().buffer })
  }

  serverClose(code: number, reason = ''): void {
    this.readyState = 3
    this.#emit('close', { code, reason })
  }

  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? []) listener(event)
  }
}

/** A WebSocket constructor whose every socket is kept in `sockets`, in order of creation. */
export function scriptedSockets(): { WebSocket: WebSocketConstructor; sockets: ScriptedSocket[] } {
  const sockets: ScriptedSocket[] = []
  const WebSocket = function () {
    const socket = new ScriptedSocket()
    sockets.push(socket)
    return socket
  } as unknown as WebSocketConstructor
  return { WebSocket, sockets }
}

const FROM_SIDECAR = { flags: 0, docId: DOC_ID, senderId: SIDECAR_ID, messageId: 'cd'.repeat(16), seq: 0 }

/** An envelope as the sidecar would send it for this document (its fields over {@link FROM_SIDECAR}). */
export function sidecarFrame(envelope: Partial<Envelope> & Pick<Envelope, 'kind' | 'payload'>): Uint8Array {
  return encodeEnvelope({ ...FROM_SIDECAR, ...envelope })
}

/** A Yjs update of a fresh document holding `text` (the tests' text is `t`). */
export function textUpdate(text: string, doc = new Y.Doc()): Uint8Array {
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

/** Lets the storage write chain run (memory storage resolves at once). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** `storage` with every commit recorded, in order. */
export function recordingStorage(inner: ClientStorage = createMemoryStorage()): ClientStorage & {
  commits: StorageCommit[]
} {
  const commits: StorageCommit[] = []
  return {
    ...inner,
    commits,
    commit: (change) => {
      commits.push(change)
      return inner.commit(change)
    },
  }
}

/** Options over the fixture's; an option set to undefined falls back to connectDoc's own default. */
export type Overrides = { readonly [K in keyof ConnectDocOptions]?: ConnectDocOptions[K] | undefined }

export type ScriptedBinding = ReturnType<typeof bind>

function bind(extra: Overrides) {
  const timers = manualTimers()
  const { WebSocket, sockets } = scriptedSockets()
  const storage = recordingStorage()
  const doc = new Y.Doc()
  const options = {
    doc,
    sidecarUrl: 'ws://sidecar.test',
    docId: DOC_ID,
    storage,
    WebSocket,
    timers,
    lifecycle: null,
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
  /** The latest socket. */
  const socket = (): ScriptedSocket => {
    const last = sockets.at(-1)
    if (last === undefined) throw new Error('no socket was opened yet')
    return last
  }
  return { conn, doc, text: doc.getText('t'), timers, storage, sockets, errors, statuses, sent, socket }
}

/**
 * Call once at the top of a test file: returns `open(extra)`, which binds a fresh document (the
 * defaults above, overridden by `extra`), closed after each test.
 */
export function scriptedBindings(): { open(extra?: Overrides): ScriptedBinding } {
  const opened: DocConnection[] = []
  afterEach(async () => {
    for (const conn of opened.splice(0)) await conn.close()
  })
  return {
    open(extra = {}) {
      const binding = bind(extra)
      opened.push(binding.conn)
      return binding
    },
  }
}

/** Binds, loads and opens the first socket (the sidecar accepted the connection). */
export async function connected(
  open: (extra?: Overrides) => ScriptedBinding,
  extra: Overrides = {},
): Promise<ScriptedBinding> {
  const binding = open(extra)
  await binding.conn.ready
  binding.socket().open()
  await settle()
  return binding
}
