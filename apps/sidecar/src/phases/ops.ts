/**
 * Phase 6, ops: `GET /healthz` and `GET /metrics`, read from the parts before it (the run state,
 * the daemon's check, the events stream, Signal's reachability and the outboxes).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EventsLoop } from '@e2e-col/signal-cli'
import { createOpsHandler } from '../ops/health.ts'
import { UNLINKED_NOTICE } from '../ops/linked-device.ts'
import type { Served } from './documents.ts'
import type { Lifecycle } from './lifecycle.ts'
import { nothingToClose, type Basics, type Phase } from './phase.ts'

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void

export function opsEndpoints(
  b: Pick<Basics, 'backend' | 'metrics' | 'config' | 'links'>,
  i: { life: Lifecycle; events: EventsLoop; served: Served },
): Phase<HttpHandler> {
  const { reach } = i.served
  const handler = createOpsHandler(
    {
      ready: i.life.ready,
      daemonReachable: () =>
        b.backend.check(AbortSignal.timeout(2000)).then(
          () => true,
          () => false,
        ),
      eventsStreamUp: () => i.events.up,
      signal: () => ({ state: reach.state, since: reach.since, unsentEnvelopes: i.served.unsentEnvelopes() }),
      linked: () =>
        b.links.unlinked ? { linked: false, since: b.links.since, notice: UNLINKED_NOTICE } : { linked: true },
    },
    b.metrics,
    {
      // The port the request reached: the listener opens after this phase.
      bind: (req) => ({ host: b.config.listen.host, port: req.socket.localPort ?? b.config.listen.port }),
      allowedOrigins: b.config.allowedOrigins,
    },
  )
  return { part: handler, close: nothingToClose }
}
