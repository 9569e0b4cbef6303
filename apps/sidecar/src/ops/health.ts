/**
 * `GET /healthz` (JSON; 200 when ready, the daemon answers its check, the events stream is up and
 * the account is still linked on Signal, otherwise 503) and `GET /metrics` (Prometheus text). Both
 * say which documents are open and how busy they are, so both are guarded like the documents API
 * (http/guard.ts): a `Host` that is not a loopback name (or the bind host) on this port is
 * 421, which stops a DNS-rebinding page; a browser request without an allowed `Origin` is 403; no
 * CORS header is ever sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isApiError, isGuardRefusal } from '../http/api-error.ts'
import { checkHost, checkOrigin } from '../http/guard.ts'
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

/** Who may read health and metrics: the documents API's rules. */
export interface OpsGuard {
  /** The listener's host and port (for the Host check), as the request reached it. */
  bind: (req: IncomingMessage) => { host: string; port: number }
  allowedOrigins: readonly string[]
}

/** The refusal of a request the API's Host and Origin rules refuse, or undefined. */
function refusal(req: IncomingMessage, guard: OpsGuard): { status: number; code: string; message: string } | undefined {
  try {
    checkHost(req.headers.host, guard.bind(req))
    checkOrigin(req, guard.allowedOrigins)
    return undefined
  } catch (error) {
    if (!isApiError(error) || !isGuardRefusal(error)) throw error
    return { status: error.status, code: error.code, message: error.message }
  }
}

export function createOpsHandler(probe: HealthProbe, metrics: Metrics, guard: OpsGuard) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://sidecar').pathname
    const refused = path === '/healthz' || path === '/metrics' ? refusal(req, guard) : undefined
    if (refused !== undefined) {
      res
        .writeHead(refused.status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify({ error: { code: refused.code, message: refused.message } }))
    } else if (req.method !== 'GET') {
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
