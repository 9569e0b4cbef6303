/**
 * Makes the session of each browser socket (a document's or a chat's): the frame bound, the abuse
 * limit and a token bucket of its own at the configured rate.
 */
import type { Envelope } from '@e2e-col/protocol'
import type { WebSocket } from 'ws'
import type { Clock } from '../clock.ts'
import type { SidecarConfig } from '../config.ts'
import type { Metrics } from '../ops/metrics.ts'
import { createTokenBucket } from '../send/token-bucket.ts'
import { createSession, type Session } from './session.ts'

export type MakeSession = (
  ws: WebSocket,
  docId: string,
  onFrame: (session: Session, env: Envelope, frame: Uint8Array) => void,
) => Session

export interface SessionsOptions {
  readonly browser: SidecarConfig['browser']
  readonly clock: Pick<Clock, 'now' | 'newMessageId'>
  readonly metrics: Metrics
  readonly sidecarId: string
}

export function sessionMaker(o: SessionsOptions): MakeSession {
  return (ws, docId, onFrame) =>
    createSession({
      ws,
      docId,
      sidecarId: o.sidecarId,
      maxFrameBytes: o.browser.maxFrameBytes,
      abuseLimit: o.browser.abuseLimit,
      rate: createTokenBucket({
        ratePerSecond: o.browser.framesPerSecond,
        burst: o.browser.frameBurst,
        now: o.clock.now(),
      }),
      now: o.clock.now,
      newMessageId: o.clock.newMessageId,
      onEnvelope: onFrame,
      metrics: o.metrics,
    })
}
