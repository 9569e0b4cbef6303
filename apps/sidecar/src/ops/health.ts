/**
 * `GET /healthz` (JSON; 200 when ready, the daemon answers its check, the events stream is up and
 * the account is still linked on Signal, otherwise 503) and `GET /metrics` (Prometheus text).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Metrics } from './metrics.ts'

export interface HealthProbe {
  ready: () => boolean
  /** Signal as the send path sees it, and the changes it has not taken yet (an offline sidecar is healthy). */
  signal: () => { state: string; since: number | null; unsentEnvelopes: number }
  daemonReachable: () => Promise<boolean>
  eventsStreamUp: () => boolean
  /** Whether the account is still linked on Signal; unlinked, the sidecar is not healthy and says why. */
  linked?: () => { linked: boolean; since?: number | null; notice?: string }
}

export function createOpsHandler(probe: HealthProbe, metrics: Metrics) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://sidecar').pathname
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end()
    } else if (path === '/healthz') {
      void probe.daemonReachable().then((daemon) => {
        const body = {
          ready: probe.ready(),
          daemonReachable: daemon,
          eventsStreamUp: probe.eventsStreamUp(),
          signal: probe.signal(),
          account: probe.linked?.() ?? { linked: true },
        }
        const ok = body.ready && body.daemonReachable && body.eventsStreamUp && body.account.linked
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      })
    } else if (path === '/metrics') {
      void metrics.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text))
    } else {
      res.writeHead(404).end()
    }
  }
}
