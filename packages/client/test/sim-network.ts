/**
 * A simulated sidecar + Signal group in memory, for seeded fuzz runs under fake timers: sockets
 * are objects, every delivery is a timer, and every fault is drawn from the network's own seeded
 * generator. With the clients' timers, jitter and storage on the same fake clock, nothing in a run
 * depends on the real event loop, so a seed replays the same run event for event (`log`).
 *
 * The relay acks each envelope and forwards it to the other sockets of the document, with faults:
 * ambiguous 1011 closes before or after forwarding, duplicates, random delays (reordering).
 */
import { decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import type { WebSocketConstructor, WebSocketLike } from '@e2e-col/transport'
import type { RelayFaults } from './sim-relay.ts'

const CONNECTING = 0
const OPEN = 1
const CLOSING = 2
const CLOSED = 3
/** One hop between a socket and the relay, ms (fake time). */
const HOP_MS = 1

type Listener = (event: never) => void

export interface SimNetwork {
  /** The WebSocket constructor clients get: every socket joins this network. */
  readonly WebSocket: WebSocketConstructor
  readonly url: string
  faults: RelayFaults
  /** The next `update` gets an ambiguous close (before or after forwarding) whatever the rates. */
  forceClose: 'before' | 'after' | undefined
  readonly stats: { ambiguousCloses: number; envelopes: number }
  /** What happened, in order, with fake times: two runs of one seed must log the same lines. */
  readonly log: string[]
  /** Closes every open socket from the relay's side. */
  closeAll(code: number, reason: string): void
}

/** `random` is the network's own generator; `name(senderId)` labels the log (sender ids are random). */
export function simNetwork(random: () => number, name: (senderId: string) => string = (s) => s): SimNetwork {
  const sockets = new Set<SimSocket>()
  let nextId = 0

  class SimSocket implements WebSocketLike {
    binaryType = 'arraybuffer'
    readyState = CONNECTING
    readonly id = ++nextId
    readonly #listeners = new Map<string, Listener[]>()

    readonly url: string

    constructor(url: string) {
      this.url = url
      sockets.add(this)
      network.log.push(`${Date.now()} open #${this.id}`)
      setTimeout(() => {
        if (this.readyState !== CONNECTING) return
        this.readyState = OPEN
        this.emit('open', {})
      }, HOP_MS)
    }

    addEventListener(type: string, listener: Listener): void {
      this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener])
    }

    emit(type: string, event: object): void {
      for (const l of this.#listeners.get(type) ?? []) (l as (e: object) => void)(event)
    }

    send(data: Uint8Array): void {
      if (this.readyState !== OPEN) throw new Error('socket not open')
      const copy = data.slice()
      setTimeout(() => relayReceive(this, copy), HOP_MS)
    }

    close(code = 1000, reason = ''): void {
      if (this.readyState === CLOSING || this.readyState === CLOSED) return
      this.readyState = CLOSING
      sockets.delete(this)
      setTimeout(() => this.closed(code, reason), HOP_MS)
    }

    /** The relay closed it, or the client's close completed. */
    closed(code: number, reason: string): void {
      if (this.readyState === CLOSED) return
      this.readyState = CLOSED
      sockets.delete(this)
      network.log.push(`${Date.now()} close #${this.id} ${code}`)
      this.emit('close', { code, reason })
    }

    /** A frame from the relay arrives (if the socket is still open by then). */
    deliver(data: Uint8Array): void {
      if (this.readyState === OPEN)
        this.emit('message', { data: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) })
    }
  }

  const serverClose = (socket: SimSocket, code: number, reason: string): void => {
    sockets.delete(socket)
    socket.readyState = CLOSING
    setTimeout(() => socket.closed(code, reason), HOP_MS)
  }

  function relayReceive(from: SimSocket, data: Uint8Array): void {
    if (!sockets.has(from)) return // closed while the frame was on its way
    const envelope: Envelope = decodeEnvelope(data)
    network.stats.envelopes += 1
    network.log.push(
      `${Date.now()} #${from.id} ${name(envelope.senderId)} ${envelope.kind} seq ${envelope.seq} ${data.byteLength} B`,
    )
    const f = network.faults
    let forced: 'before' | 'after' | undefined
    if (network.forceClose !== undefined && envelope.kind === 'update') {
      forced = network.forceClose
      network.forceClose = undefined
    }
    // A fixed number of draws per envelope, so one decision never shifts the next one's numbers.
    const [before, duplicate, after] = [random(), random(), random()]
    if (forced === 'before' || (forced === undefined && before < f.closeBeforeRate)) {
      network.stats.ambiguousCloses += 1
      network.log.push(`${Date.now()} fault close-before #${from.id}`)
      serverClose(from, 1011, 'ambiguous')
      return
    }
    const copies = duplicate < f.duplicateRate ? 2 : 1
    for (const other of [...sockets].sort((a, b) => a.id - b.id)) {
      if (other === from || other.url !== from.url) continue
      for (let i = 0; i < copies; i++) {
        const delay = HOP_MS + Math.floor(random() * f.maxDelayMs)
        setTimeout(() => other.deliver(data), delay)
      }
    }
    if (forced === 'after' || (forced === undefined && after < f.closeAfterRate)) {
      network.stats.ambiguousCloses += 1
      network.log.push(`${Date.now()} fault close-after #${from.id}`)
      serverClose(from, 1011, 'ambiguous')
      return
    }
    const ack = encodeEnvelope({ ...envelope, kind: 'ack', payload: new Uint8Array() })
    setTimeout(() => from.deliver(ack), HOP_MS)
  }

  const network: SimNetwork = {
    WebSocket: SimSocket,
    url: 'ws://sim.invalid',
    faults: { closeBeforeRate: 0, closeAfterRate: 0, duplicateRate: 0, maxDelayMs: 0 },
    forceClose: undefined,
    stats: { ambiguousCloses: 0, envelopes: 0 },
    log: [],
    closeAll(code, reason) {
      for (const s of sockets) serverClose(s, code, reason) // deleting the visited entry is safe in a Set
    },
  }
  return network
}
