/**
 * One browser WebSocket of one document. Frames must be binary, within the per-connection rate,
 * decodable, for this document, of a kind browsers may send, and keep the connection's first
 * sender id. A refused frame gets an `error` envelope; after `abuseLimit` refusals the connection
 * is closed with the matching close code (1003 text frames, 1008 anything else). Oversize frames
 * never get here: ws closes those with 1009.
 * @see docs/daemon-contract.md §6.7
 */
import {
  CLOSE_CODES,
  decodeEnvelope,
  encodeEnvelope,
  FLAGS,
  isProtocolError,
  type Envelope,
  type WireErrorCode,
} from '@e2e-col/protocol'
import type { WebSocket } from 'ws'
import type { Metrics } from '../ops/metrics.ts'
import type { TokenBucket } from '../send/token-bucket.ts'
import { BROWSER_KINDS } from './kinds.ts'

/** Bytes a slow browser may leave unread before it is disconnected (1013). */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export interface SessionOptions {
  ws: WebSocket
  docId: string
  /** Sender id put on error envelopes before the browser has told us its own. */
  sidecarId: string
  maxFrameBytes: number
  abuseLimit: number
  rate: TokenBucket
  now: () => number
  newMessageId: () => string
  onEnvelope: (session: Session, envelope: Envelope, frame: Uint8Array) => void
  metrics: Metrics
}

export interface Session {
  readonly docId: string
  /** Sends a frame to this browser (dropped if the socket is no longer open). */
  send(frame: Uint8Array): void
  ack(messageId: string): void
  /** Answers with an `error` envelope; `strike` counts it towards the abuse limit. */
  refuse(
    code: WireErrorCode,
    message: string,
    options: { messageId?: string | undefined; strike: boolean; closeCode?: number },
  ): void
  close(code: number, reason: string): void
}

function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data))
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

export function createSession(o: SessionOptions): Session {
  let senderId: string | undefined
  let strikes = 0
  const enc = new TextEncoder()

  const session: Session = {
    docId: o.docId,
    send(frame) {
      if (o.ws.readyState !== o.ws.OPEN) return
      if (o.ws.bufferedAmount > MAX_BUFFERED_BYTES)
        return session.close(CLOSE_CODES.TRY_AGAIN_LATER, 'browser reads too slowly')
      o.ws.send(frame, { binary: true })
    },
    ack(messageId) {
      session.send(
        encodeEnvelope({
          kind: 'ack',
          flags: 0,
          docId: o.docId,
          senderId: senderId ?? o.sidecarId,
          messageId,
          seq: 0,
          payload: new Uint8Array(0),
        }),
      )
    },
    refuse(code, message, options) {
      o.metrics.framesRefused.inc({ code })
      const payload = enc.encode(JSON.stringify({ code, message }))
      session.send(
        encodeEnvelope({
          kind: 'error',
          flags: 0,
          docId: o.docId,
          senderId: senderId ?? o.sidecarId,
          messageId: options.messageId ?? o.newMessageId(),
          seq: 0,
          payload,
        }),
      )
      if (options.strike && ++strikes >= o.abuseLimit)
        session.close(options.closeCode ?? CLOSE_CODES.POLICY_VIOLATION, code)
    },
    close(code, reason) {
      if (o.ws.readyState === o.ws.OPEN || o.ws.readyState === o.ws.CONNECTING) o.ws.close(code, reason.slice(0, 120))
    },
  }

  o.ws.on('message', (data, isBinary) => {
    if (!isBinary)
      return session.refuse('SIDECAR_TEXT_FRAME', 'only binary frames are accepted', {
        strike: true,
        closeCode: CLOSE_CODES.UNSUPPORTED_DATA,
      })
    if (!o.rate.tryTake(o.now()))
      return session.refuse('SIDECAR_RATE_LIMITED', 'too many frames on this connection', { strike: true })
    const frame = toBytes(data)
    let env: Envelope
    try {
      env = decodeEnvelope(frame, { maxPayloadBytes: o.maxFrameBytes })
    } catch (error) {
      if (!isProtocolError(error)) throw error
      return session.refuse(error.code, error.message, { strike: true })
    }
    const strike = { messageId: env.messageId, strike: true }
    if (env.docId !== o.docId)
      return session.refuse(
        'SIDECAR_WRONG_DOCUMENT',
        'the envelope is for another document than this connection',
        strike,
      )
    if (!BROWSER_KINDS.has(env.kind))
      return session.refuse('SIDECAR_KIND_NOT_ALLOWED', `browsers may not send ${env.kind} envelopes`, strike)
    if ((env.flags & FLAGS.deflated) !== 0)
      return session.refuse('SIDECAR_FLAG_NOT_ALLOWED', 'the deflated flag is set only between sidecars', strike)
    if (senderId !== undefined && env.senderId !== senderId)
      return session.refuse('SIDECAR_SENDER_CHANGED', 'a connection keeps one sender id', strike)
    senderId = env.senderId
    o.onEnvelope(session, env, frame)
  })
  return session
}
