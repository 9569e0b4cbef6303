/**
 * A simulated sidecar + Signal group for client tests: a real `ws` server on 127.0.0.1 port 0 that
 * acks each envelope and forwards it to the other connections of the same document, with seeded
 * faults (ambiguous 1011 closes before or after forwarding, duplicates, random delays = reordering).
 */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { WebSocketServer, type WebSocket } from 'ws'

export interface RelayFaults {
  /** Close 1011 before forwarding (the send never happened). */
  closeBeforeRate: number
  /** Forward, then close 1011 without an ack (the send happened, the client cannot know). */
  closeAfterRate: number
  duplicateRate: number
  maxDelayMs: number
}

export const NO_FAULTS: RelayFaults = { closeBeforeRate: 0, closeAfterRate: 0, duplicateRate: 0, maxDelayMs: 0 }

/** How long `nextEnvelope` waits before it fails naming what it waited for. */
const NEXT_ENVELOPE_MS = 20_000

export interface Relay {
  url: string
  received: Envelope[]
  /** Fault closes performed (1011 before or after forwarding). */
  stats: { ambiguousCloses: number }
  faults: RelayFaults
  /** While true, nothing is acked or forwarded (a stuck Signal). */
  hold: boolean
  /** Called for every envelope before the relay handles it; return false to swallow it. */
  intercept: ((envelope: Envelope, socket: WebSocket) => boolean) | undefined
  sockets(docId: string): WebSocket[]
  closeAll(code: number, reason: string): void
  /** The next envelope received that satisfies `predicate`; rejects after 20 s naming `what`. */
  nextEnvelope(predicate: (e: Envelope) => boolean, what?: string): Promise<Envelope>
  close(): Promise<void>
}

export async function startRelay(random: () => number = Math.random): Promise<Relay> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await once(wss, 'listening')
  const byDoc = new Map<string, Set<WebSocket>>()
  const waiters: { predicate: (e: Envelope) => boolean; resolve: (e: Envelope) => void }[] = []
  const relay: Relay = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    received: [],
    stats: { ambiguousCloses: 0 },
    faults: { ...NO_FAULTS },
    hold: false,
    intercept: undefined,
    sockets: (docId) => [...(byDoc.get(docId) ?? [])],
    closeAll(code, reason) {
      for (const c of wss.clients) c.close(code, reason)
    },
    nextEnvelope(predicate, what = 'an envelope matching the predicate') {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(waiter)
          if (i >= 0) waiters.splice(i, 1)
          reject(
            new Error(
              `waited ${NEXT_ENVELOPE_MS} ms for ${what}; the relay received ${relay.received.length} envelopes`,
            ),
          )
        }, NEXT_ENVELOPE_MS)
        const waiter = {
          predicate,
          resolve: (e: Envelope) => {
            clearTimeout(timer)
            resolve(e)
          },
        }
        waiters.push(waiter)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate()
        wss.close(() => resolve())
      }),
  }

  wss.on('connection', (socket, request) => {
    const docId = /^\/v1\/docs\/([0-9a-f-]{36})$/.exec(request.url ?? '')?.[1]
    if (docId === undefined) {
      socket.close(1008, 'bad path')
      return
    }
    let peers = byDoc.get(docId)
    if (peers === undefined) byDoc.set(docId, (peers = new Set()))
    peers.add(socket)
    socket.on('close', () => peers.delete(socket))
    socket.on('message', (data: Buffer) => {
      const envelope = decodeEnvelope(new Uint8Array(data))
      relay.received.push(envelope)
      for (const w of waiters.splice(0)) {
        if (w.predicate(envelope)) w.resolve(envelope)
        else waiters.push(w)
      }
      if (relay.intercept !== undefined && !relay.intercept(envelope, socket)) return
      if (relay.hold) return
      const f = relay.faults
      if (random() < f.closeBeforeRate) {
        relay.stats.ambiguousCloses += 1
        socket.close(1011, 'ambiguous')
        return
      }
      const copies = random() < f.duplicateRate ? 2 : 1
      for (const other of peers) {
        if (other === socket) continue
        for (let i = 0; i < copies; i++) {
          const delay = Math.floor(random() * f.maxDelayMs)
          const send = (): void => {
            if (other.readyState === other.OPEN) other.send(data)
          }
          if (delay === 0) send()
          else setTimeout(send, delay)
        }
      }
      if (random() < f.closeAfterRate) {
        relay.stats.ambiguousCloses += 1
        socket.close(1011, 'ambiguous')
        return
      }
      socket.send(encodeEnvelope({ ...envelope, kind: 'ack', payload: new Uint8Array() }))
    })
  })
  return relay
}
