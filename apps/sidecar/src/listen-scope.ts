/**
 * How far the listener reaches. E2E_COL_LISTEN is loopback unless E2E_COL_ALLOW_NON_LOOPBACK=1
 * says otherwise; then the sidecar warns at start, and every request is checked against its peer
 * address, not only its headers: a request from another host may not name a loopback host in
 * `Host` or `Origin` (421), so a host on the network cannot pass the API's Host check by writing
 * `Host: 127.0.0.1:PORT`. Requests from loopback peers go on to the usual Host and Origin checks.
 * @see docs/sidecar.md §4, docs/reliability.md §2.4
 */
import type { IncomingMessage } from 'node:http'
import { isLoopbackHost } from '@e2e-col/signal-cli'

/** The variable that allows listening beyond loopback. */
export const ALLOW_NON_LOOPBACK = 'E2E_COL_ALLOW_NON_LOOPBACK'

/** Why listening on `host` is refused, or undefined when it is allowed. */
export function listenProblem(host: string, allowNonLoopback: boolean): string | undefined {
  if (isLoopbackHost(host) || allowNonLoopback) return undefined
  return `${host} is not a loopback address: every program and web page that reaches it could use the documents API; set ${ALLOW_NON_LOOPBACK}=1 only on a network you trust`
}

/** The warning to log at start when the listener reaches beyond loopback, or undefined. */
export function listenWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined
  return `listening beyond loopback on ${host} (${ALLOW_NON_LOOPBACK}=1): hosts that reach it may use the documents API by naming ${host}; loopback names are believed only from this machine`
}

/** The host name of a `Host` header (brackets dropped), or undefined when there is none. */
function hostName(host: string | undefined): string | undefined {
  const m = host === undefined ? null : /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::\d{1,5})?$/.exec(host)
  return m === null ? undefined : (m[1] ?? m[2])
}

function originName(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined
  try {
    return new URL(origin).hostname
  } catch {
    return undefined
  }
}

/**
 * False for a request from another host that names a loopback host (in `Host` or `Origin`) or
 * carries no usable `Host`: such a request is answered 421 before any other check.
 */
export function peerMayAsk(req: Pick<IncomingMessage, 'headers' | 'socket'>): boolean {
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '')
  if (isLoopbackHost(peer)) return true
  const host = hostName(req.headers.host)
  if (host === undefined || isLoopbackHost(host)) return false
  const origin = originName(req.headers.origin)
  return origin === undefined || !isLoopbackHost(origin)
}
