/**
 * connectDoc: binds a Y.Doc to a sidecar.
 *
 * Life of a local edit: Y.Doc `update` → {@link Coalescer} (one payload per flush window) → outbox
 * entry written to storage → sent if connected → removed from the outbox only after the sidecar's
 * `ack` for its message id (the deletion rides on the next checkpoint write). Every (re)connect
 * replays the unacknowledged outbox with the same message ids, then sends a `sync-request`.
 * Remote `update`/`sync-response`/`snapshot` payloads are applied with {@link REMOTE_ORIGIN}, so they
 * are never sent back out.
 */
import {
  CLOSE_CODES,
  decodeDeliveryNote,
  decodeEnvelope,
  encodeEnvelope,
  isUuid,
  type Envelope,
} from '@e2e-col/protocol'
import { Emitter, WebSocketTransport, type WebSocketConstructor, type WebSocketLike } from '@e2e-col/transport'
import * as Y from 'yjs'
import { CheckpointSchedule } from './checkpoint-schedule.ts'
import { systemTimers, SyncResponder, type Timers } from '@e2e-col/sync'
import { Coalescer, DEFAULT_MERGE_LIMIT, encodeOwnUpdate } from './coalescer.ts'
import {
  LOAD_ORIGIN,
  REMOTE_ORIGIN,
  RESCUE_ORIGIN,
  type ClientStatus,
  type ConnectDocOptions,
  type DocConnection,
  type DocConnectionEvents,
} from './connection.ts'
import { ClientError } from './errors.ts'
import { newMessageId, newUuid } from './ids.ts'
import { createIndexedDbStorage } from './indexeddb-storage.ts'
import { AwarenessChannel, DEFAULT_PRESENCE_IDLE_MS, DEFAULT_PRESENCE_INTERVAL_MS } from './awareness-channel.ts'
import { documentUrl } from './sidecar-url.ts'
import type { ClientStorage, OutboxEntry } from './storage.ts'
import { Outbox } from './outbox.ts'
import { StorageWrites } from './storage-writes.ts'
import { browserLifecycle } from './page-lifecycle.ts'
import { readRemoteError } from './remote-error.ts'
import { trackLocalChanges, type LocalChanges } from './local-changes.ts'
import { DeliveryTracker, weakestState } from './delivery-status.ts'
import type { Awareness } from 'y-protocols/awareness'
import { DEFAULT_RATE_LIMIT_HOLD_MS, RATE_LIMITED_CODE, SendHold } from './send-hold.ts'
import { ClientIdFollower, localAuthorTagCache } from './derived-client-id.ts'

/**
 * Binds `doc` to the sidecar document `docId`: loads the local checkpoint and outbox first, then
 * connects, replays, and syncs. Returns at once; see {@link DocConnection.ready}.
 * @throws ClientError `CLIENT_BAD_DOC_ID`, `CLIENT_BAD_SIDECAR_URL`, `CLIENT_NO_WEBSOCKET`
 */
export function connectDoc(options: ConnectDocOptions): DocConnection {
  if (!isUuid(options.docId)) {
    throw new ClientError('CLIENT_BAD_DOC_ID', 'docId must be a canonical lowercase UUID')
  }
  const url = documentUrl(options.sidecarUrl, options.docId)
  const WebSocketImpl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
  if (WebSocketImpl === undefined) {
    throw new ClientError('CLIENT_NO_WEBSOCKET', 'no WebSocket constructor: pass options.WebSocket (e.g. from ws)')
  }
  return new Binding(options, url, WebSocketImpl)
}

class Binding implements DocConnection {
  readonly docId: string
  readonly ready: Promise<void>
  readonly #doc: Y.Doc
  readonly #storage: ClientStorage
  readonly #timers: Timers
  readonly #transport: WebSocketTransport
  readonly #coalescer: Coalescer
  readonly #responder: SyncResponder
  readonly #awareness: AwarenessChannel | null
  readonly #events = new Emitter<DocConnectionEvents>()
  readonly #outbox: Outbox
  readonly #checkpoints: CheckpointSchedule
  readonly #writes: StorageWrites
  #senderId: string | undefined
  #loaded = false
  #closed = false
  #needsSnapshot = false
  #lastAckAt: number | null = null
  /** The sidecar's copy is applied on this connection (its answer to our sync request arrived). */
  #synced = false
  /** The sender id of the sidecar's own envelopes on this connection (its greeting `delivery` is the first frame). */
  #sidecarSender: string | undefined
  #lastFrameAt = 0
  readonly #resyncIntervalMs: number
  #resyncTimer: unknown = undefined
  #lastStatus: ClientStatus | undefined
  readonly #delivery = new DeliveryTracker()
  readonly #detach: (() => void)[] = []
  readonly #localChanges: LocalChanges
  readonly #hold: SendHold
  readonly #ids: ClientIdFollower
  /** Every client id this page wrote under (its rescued content's included): what a rescue may hold. */
  readonly #writers = new Set<number>()

  constructor(options: ConnectDocOptions, url: string, WebSocketImpl: WebSocketConstructor) {
    this.docId = options.docId
    this.#doc = options.doc
    this.#timers = options.timers ?? systemTimers
    // Before anything is written: with a cached tag, the first local edit is already under a derived id.
    this.#ids = new ClientIdFollower({
      doc: this.#doc,
      cache: options.authorTagCache === undefined ? localAuthorTagCache(new URL(url).host) : options.authorTagCache,
      onSwitch: (before) => this.#onClientId(before),
    })
    this.#storage = options.storage ?? createIndexedDbStorage(options.docId, { prefix: `e2e-col@${new URL(url).host}` })
    this.#writes = new StorageWrites(this.#storage, (error) => this.#report(error))
    this.#checkpoints = new CheckpointSchedule(this.#timers, options.checkpointDelayMs ?? 1000, () =>
      this.#writes.chain(() => this.#checkpointNow()),
    )
    const random = options.random ?? Math.random
    this.#coalescer = new Coalescer(
      this.#doc,
      {
        flushWindowMs: options.flushWindowMs ?? 250,
        mergeLimit: options.mergeLimit ?? DEFAULT_MERGE_LIMIT,
        timers: this.#timers,
        inFlight: () => this.#outbox.pending > 0,
      },
      (payload) => {
        this.#outbox.add('update', payload)
        this.#localChanges.sync()
      },
    )
    const delays = options.syncResponseDelayMs ?? { min: 20, max: 300 }
    this.#responder = new SyncResponder(
      this.#doc,
      { minDelayMs: delays.min, maxDelayMs: delays.max, maxPending: 64, random, timers: this.#timers },
      (payload) => this.#sendEphemeral('sync-response', payload),
      () => this.#sendEphemeral('sync-request', Y.encodeStateVector(this.#doc)),
    )
    const hold = options.rateLimitHoldMs ?? DEFAULT_RATE_LIMIT_HOLD_MS
    this.#hold = new SendHold({ timers: this.#timers, minMs: hold.min, maxMs: hold.max, resume: () => this.#resume() })
    this.#resyncIntervalMs = options.resyncIntervalMs ?? 0
    this.#transport = new WebSocketTransport({ url, WebSocket: WebSocketImpl, random, ...options.transport })
    this.#outbox = new Outbox({
      compactAt: options.compactAt ?? 32,
      writes: this.#writes,
      connected: () => this.#transport.status === 'connected',
      send: (entry) => this.#sendEntry(entry),
      // Presence rides behind the edit: the sidecar packs both into one Signal message.
      afterFirstSend: () => this.#awareness?.ride(),
      onChange: () => this.#emitStatus(),
    })
    this.#awareness =
      options.awareness === undefined || options.awareness === false
        ? null
        : new AwarenessChannel(this.#doc, {
            idleMs: options.awareness.idleMs ?? DEFAULT_PRESENCE_IDLE_MS,
            intervalMs: options.awareness.intervalMs ?? DEFAULT_PRESENCE_INTERVAL_MS,
            instance: options.awareness.instance,
            timers: this.#timers,
            send: (payload) => this.#sendEphemeral('awareness', payload),
            remoteOrigin: REMOTE_ORIGIN,
          })
    this.#awareness?.follow(this.#doc) // an Awareness made before the id was derived
    this.#detach.push(() => this.#ids.detach())

    this.#localChanges = trackLocalChanges({
      doc: this.#doc,
      coalescer: this.#coalescer,
      remoteOrigin: REMOTE_ORIGIN,
      loadOrigin: LOAD_ORIGIN,
      rescueOrigin: RESCUE_ORIGIN,
      active: () => !this.#closed,
      onLocalChange: (writers) => {
        for (const id of writers) this.#writers.add(id)
        this.#emitStatus()
      },
      onAnyChange: () => this.#scheduleCheckpoint(),
    })
    this.#detach.push(() => this.#localChanges.detach())
    this.#detach.push(
      this.#transport.on('attempt', () => this.#events.emit('socket', { type: 'attempt' })),
      this.#transport.on('open', () => {
        this.#events.emit('socket', { type: 'open' })
        this.#onOpen()
      }),
      this.#transport.on('error', ({ event }) => this.#events.emit('socket', { type: 'error', event })),
      this.#transport.on('close', (close) => {
        this.#events.emit('socket', { type: 'close', ...close })
        if (close.code === CLOSE_CODES.ORIGIN_NOT_ALLOWED) this.#originRefused(close.reason)
        this.#onSocketClosed()
      }),
      this.#transport.on('halted', (halt) => this.#events.emit('socket', { type: 'halted', ...halt })),
      this.#transport.on('frame', (frame) => this.#onFrame(frame)),
      this.#transport.on('status', () => this.#emitStatus()),
      this.#transport.on('recoveryRequired', (event) => {
        this.#needsSnapshot = true
        this.#events.emit('recovery', event)
      }),
    )
    const lifecycle = options.lifecycle === undefined ? browserLifecycle() : options.lifecycle
    if (lifecycle !== null) this.#detach.push(lifecycle.onHide(() => this.#onHide()))
    const onLeave = lifecycle?.onLeave?.bind(lifecycle)
    if (onLeave !== undefined && this.#awareness !== null) {
      const channel = this.#awareness
      this.#detach.push(
        onLeave(
          () => channel.leave(),
          () => channel.rejoin(),
        ),
      )
    }

    this.ready = this.#writes.begin(this.#load()).then(() => {
      if (!this.#closed) this.#transport.start()
    })
  }

  get senderId(): string | undefined {
    return this.#senderId
  }

  get awareness(): Awareness | null {
    return this.#awareness?.awareness ?? null
  }

  get authorTag(): number | undefined {
    return this.#ids.tag
  }

  get socket(): WebSocketLike | null {
    return this.#transport.socket
  }

  get lastFrameAt(): number {
    return this.#lastFrameAt
  }

  farewell(): void {
    this.#awareness?.farewell()
  }

  reconnectNow(): void {
    this.#transport.reconnectNow()
  }

  status(): ClientStatus {
    const pending = this.#outbox.pending + this.#coalescer.pendingCount
    const delivery = this.#delivery.status
    return {
      connection: this.#transport.status,
      pending,
      delivery,
      weakest: weakestState(pending, delivery),
      lastAckAt: this.#lastAckAt,
      loaded: this.#loaded,
      synced: this.#synced,
    }
  }

  on<K extends keyof DocConnectionEvents>(event: K, listener: (value: DocConnectionEvents[K]) => void): () => void {
    return this.#events.on(event, listener)
  }

  async flush(): Promise<void> {
    this.#coalescer.flush()
    await this.#writes.idle()
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#coalescer.flush()
    // The presence removal goes out while the socket is still open: peers drop the caret at once.
    this.#awareness?.dispose()
    this.#closed = true
    await this.#writes.idle()
    this.#checkpoints.cancel()
    if (this.#loaded) await this.#checkpointNow()
    for (const detach of this.#detach.splice(0)) detach()
    this.#coalescer.dispose()
    this.#responder.dispose()
    this.#stopResync()
    this.#hold.reset()
    this.#transport.stop()
    this.#emitStatus()
  }

  async #load(): Promise<void> {
    try {
      this.#senderId = await this.#storage.senderId()
      const stored = await this.#storage.load()
      Y.transact(
        this.#doc,
        () => {
          if (stored.checkpoint !== undefined) Y.applyUpdate(this.#doc, stored.checkpoint, LOAD_ORIGIN)
          // Outbox entries may be newer than the (debounced) checkpoint: they are local edits too.
          for (const entry of stored.outbox) Y.applyUpdate(this.#doc, entry.payload, LOAD_ORIGIN)
        },
        LOAD_ORIGIN,
      )
      this.#outbox.restore(stored)
      await this.#storage.commit({ seqMark: this.#outbox.seqMark })
      if (stored.skipped > 0) {
        this.#report(
          new ClientError('CLIENT_STORAGE_FAILED', `${stored.skipped} unreadable stored records were skipped`),
        )
      }
    } catch (cause) {
      // Without a readable store we must not write one either (a checkpoint of a half-loaded
      // document would overwrite real data); keep working in memory and say so.
      this.#writes.disable()
      this.#senderId ??= newUuid()
      this.#report(
        new ClientError('CLIENT_STORAGE_FAILED', 'local storage unavailable; changes are kept in memory only', {
          cause,
        }),
      )
    }
    this.#coalescer.rebase()
    this.#loaded = true
    this.#emitStatus()
    if (this.#writes.persistent) {
      this.#foldRescue()
      await this.#outbox.compactIfNeeded()
    }
  }

  /**
   * Applies the page-hide rescue (if the last page unloaded before its IndexedDB writes finished):
   * its full state, so this page shows all the last one did, offline too. Of what it adds, only the
   * last page's own writing (the ids saved with it) goes out, as one outbox update: the rest came
   * from peers through the sidecar, which has it, and sent as this page's own it would be dropped
   * by every other sidecar as written under someone else's id. A slot saved without ids (before
   * they were kept) has all it adds sent, as then.
   */
  #foldRescue(): void {
    const rescue = this.#storage.rescue
    const state = rescue?.peek()
    if (rescue === undefined || state === undefined) return
    try {
      const before = Y.decodeStateVector(Y.encodeStateVector(this.#doc))
      const deletedBefore = Y.createDeleteSetFromStructStore(this.#doc.store)
      Y.applyUpdate(this.#doc, state, RESCUE_ORIGIN)
      const added = [...Y.decodeStateVector(Y.encodeStateVector(this.#doc))]
        .filter(([id, clock]) => clock > (before.get(id) ?? 0))
        .map(([id]) => id)
      const writers = rescue.peekWriters?.() ?? added
      for (const id of writers) this.#writers.add(id)
      const deleted = !Y.equalDeleteSets(deletedBefore, Y.createDeleteSetFromStructStore(this.#doc.store))
      if (deleted || writers.some((id) => added.includes(id)))
        this.#outbox.add('update', encodeOwnUpdate(this.#doc, writers, before))
    } catch (cause) {
      this.#report(new ClientError('CLIENT_STORAGE_FAILED', 'the page-hide rescue state was unreadable', { cause }))
    }
    this.#coalescer.rebase()
    // The slot is cleared once a checkpoint holds what it added (after the outbox entry: the chain is ordered).
    this.#writes.chain(() => this.#checkpointNow())
  }

  #onOpen(): void {
    this.#hold.reset() // a new connection: everything below is sent again anyway
    if (this.#needsSnapshot) {
      this.#needsSnapshot = false
      this.#outbox.add('snapshot', Y.encodeStateAsUpdate(this.#doc))
    }
    this.#outbox.resendAll()
    this.#sendEphemeral('sync-request', Y.encodeStateVector(this.#doc))
    // State vectors cannot show deletions, so peers cannot tell we hold one they missed (received
    // while they were away). Push our delete set once per connection, as y-websocket's step 2 does.
    if (Y.createDeleteSetFromStructStore(this.#doc.store).clients.size > 0) {
      // Its delete set only (no one's structs, not even ones waiting for missing ones).
      this.#sendEphemeral('update', encodeOwnUpdate(this.#doc, []))
    }
    this.#awareness?.announce()
    this.#scheduleResync()
  }

  /** The sidecar refused this page's origin: said once per refusal, with the origin it named. */
  #originRefused(reason: string): void {
    this.#report(
      new ClientError(
        'CLIENT_ORIGIN_NOT_ALLOWED',
        `the sidecar refused this page: ${reason === '' ? "this page's origin is not allowed" : reason} (no retry until reconnected)`,
      ),
    )
  }

  /** The socket is gone: the sidecar's copy is no longer live, nor are peers' presences (y-websocket clears them). */
  #onSocketClosed(): void {
    this.#stopResync()
    this.#sidecarSender = undefined
    this.#awareness?.forgetPeers()
    if (!this.#synced) return
    this.#synced = false
    this.#emitStatus()
  }

  #scheduleResync(): void {
    if (this.#resyncIntervalMs <= 0) return
    this.#stopResync()
    this.#resyncTimer = this.#timers.setTimeout(() => {
      this.#resyncTimer = undefined
      this.#sendEphemeral('sync-request', Y.encodeStateVector(this.#doc))
      if (this.#transport.status === 'connected' && !this.#closed) this.#scheduleResync()
    }, this.#resyncIntervalMs)
  }

  #stopResync(): void {
    if (this.#resyncTimer === undefined) return
    this.#timers.clearTimeout(this.#resyncTimer)
    this.#resyncTimer = undefined
  }

  #onFrame(frame: Uint8Array): void {
    this.#lastFrameAt = this.#timers.now()
    let envelope: Envelope
    try {
      envelope = decodeEnvelope(frame)
    } catch (cause) {
      this.#report(new ClientError('CLIENT_BAD_FRAME', 'undecodable frame from the sidecar', { cause }))
      return
    }
    if (envelope.docId !== this.docId) return
    try {
      switch (envelope.kind) {
        case 'ack':
          this.#onAck(envelope.messageId)
          break
        case 'error':
          this.#onRemoteError(envelope)
          break
        case 'delivery':
          this.#sidecarSender ??= envelope.senderId
          this.#onDelivery(envelope.payload, envelope.senderId === this.#sidecarSender)
          break
        case 'update':
          Y.applyUpdate(this.#doc, envelope.payload, REMOTE_ORIGIN)
          break
        case 'sync-response':
        case 'snapshot':
          this.#responder.onPeerResponse(envelope.payload)
          Y.applyUpdate(this.#doc, envelope.payload, REMOTE_ORIGIN)
          if (envelope.kind === 'sync-response') this.#onSyncResponse(envelope.senderId)
          break
        case 'sync-request':
          this.#responder.onRequest(envelope.payload)
          break
        case 'awareness':
          this.#awareness?.apply(envelope.payload)
          break
        default:
          // health, chat-* and transport kinds are not for a document binding.
          break
      }
    } catch (cause) {
      // A peer's malformed payload must not break the binding; the envelope is dropped.
      this.#report(new ClientError('CLIENT_BAD_FRAME', `malformed ${envelope.kind} payload`, { cause }))
    }
  }

  /** The sidecar answers our sync request from its copy at once; a peer's answer (another sender) does not count. */
  #onSyncResponse(senderId: string): void {
    if (this.#synced || this.#transport.status !== 'connected') return
    if (this.#sidecarSender !== undefined && senderId !== this.#sidecarSender) return
    this.#synced = true
    this.#emitStatus()
  }

  #onAck(messageId: string): void {
    if (!this.#outbox.ack(messageId)) return
    this.#lastAckAt = this.#timers.now()
    if (this.#outbox.pending === 0) this.#coalescer.released()
    this.#scheduleCheckpoint()
    this.#emitStatus()
  }

  #onDelivery(payload: Uint8Array, fromSidecar: boolean): void {
    const note = decodeDeliveryNote(payload)
    if (note === undefined) return // informative only: an unreadable note changes nothing
    // Only this page's own sidecar knows its account's tag.
    if (note.author !== undefined && fromSidecar) this.#ids.setTag(note.author)
    const sent = this.#delivery.onNote(note)
    this.#events.emit('delivery', note)
    if (sent.length > 0) this.#events.emit('sent', { messageIds: sent })
    this.#emitStatus()
  }

  /** The document writes under a new client id: presence follows, and the app is told. */
  #onClientId(before: number): void {
    this.#awareness?.follow(this.#doc)
    this.#events.emit('clientId', { before, clientId: this.#doc.clientID })
  }

  #onRemoteError(envelope: Envelope): void {
    const { remoteCode, message } = readRemoteError(envelope.payload)
    // Too many frames: which one is unknown; hold, then send the unacknowledged outbox again.
    if (remoteCode === RATE_LIMITED_CODE) return this.#hold.refused()
    const outcome = this.#outbox.reject(envelope.messageId, remoteCode)
    if (outcome === 'reissued') return
    const refused = remoteCode === 'SIDECAR_SEND_REJECTED'
    if (refused) this.#delivery.onRefused(message)
    if (outcome === 'dropped') this.#scheduleCheckpoint()
    if (outcome === 'dropped' && this.#outbox.pending === 0) this.#coalescer.released()
    if (refused || outcome === 'dropped') this.#emitStatus()
    this.#report(new ClientError('CLIENT_REJECTED', message, { remoteCode }))
  }

  /** After a rate hold: what was refused or held back is still in the outbox (see send-hold.ts). */
  #resume(): void {
    if (this.#transport.status !== 'connected' || this.#closed) return
    this.#outbox.resendAll()
    this.#sendEphemeral('sync-request', Y.encodeStateVector(this.#doc))
  }

  #sendEntry(entry: OutboxEntry): void {
    this.#send(entry.kind, entry.seq, entry.messageId, entry.payload)
  }

  /** Sends a message that is not kept in the outbox (a later connect re-creates it if needed). */
  #sendEphemeral(kind: 'update' | 'sync-request' | 'sync-response' | 'awareness', payload: Uint8Array): void {
    if (this.#transport.status !== 'connected' || this.#closed) return
    this.#send(kind, this.#outbox.nextSeq(), newMessageId(), payload)
  }

  #send(kind: Envelope['kind'], seq: number, messageId: string, payload: Uint8Array): void {
    const senderId = this.#senderId
    if (senderId === undefined || this.#closed || this.#hold.held) return
    this.#transport.send(encodeEnvelope({ kind, flags: 0, docId: this.docId, senderId, messageId, seq, payload }))
  }

  #scheduleCheckpoint(): void {
    if (this.#loaded && this.#writes.persistent && !this.#closed) this.#checkpoints.touch()
  }

  async #checkpointNow(): Promise<void> {
    if (!this.#writes.persistent) return
    const remove = this.#outbox.takeSettled()
    const ok = await this.#writes.commit({ checkpoint: Y.encodeStateAsUpdate(this.#doc), remove })
    if (ok) this.#storage.rescue?.clear()
  }

  #onHide(): void {
    this.#coalescer.flush()
    if (!this.#loaded || !this.#writes.persistent) return
    // IndexedDB writes started now may not finish if the page is unloading; the rescue slot is
    // synchronous. The checkpoint below clears it again once durable.
    // With the ids this page wrote under: the next page sends only their part of what it adds.
    this.#storage.rescue?.save(Y.encodeStateAsUpdate(this.#doc), [...this.#writers])
    this.#checkpoints.cancel()
    this.#writes.chain(() => this.#checkpointNow())
  }

  #report(error: ClientError): void {
    this.#events.emit('error', error)
  }

  #emitStatus(): void {
    const status = this.status()
    const last = this.#lastStatus
    if (
      last !== undefined &&
      last.connection === status.connection &&
      last.pending === status.pending &&
      last.delivery === status.delivery &&
      last.lastAckAt === status.lastAckAt &&
      last.loaded === status.loaded &&
      last.synced === status.synced
    ) {
      return
    }
    this.#lastStatus = status
    this.#events.emit('status', status)
    if (status.pending === 0 && last !== undefined && last.pending > 0) {
      this.#events.emit('saved', { at: this.#timers.now() })
    }
  }
}
