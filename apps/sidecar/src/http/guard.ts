/**
 * Who may talk to the documents API. The API says with whom a person shares documents, so a web
 * page on another origin must neither read nor change it:
 * - only loopback `Host` names (and the bind host) on the listening port are served; anything
 *   else is 421, as signal-cli 0.14.4+ answers: a DNS-rebinding page reaches 127.0.0.1 under its
 *   own name, and this check is what stops it;
 * - a request from a browser must carry an allowed `Origin`, reads included (a request without
 *   Origin and without `Sec-Fetch-Site` comes from a local program such as the CLI; a browser's
 *   same-origin request, `Sec-Fetch-Site: same-origin`, is the sidecar's own page);
 * - CORS headers name only an allowed origin, never `*`.
 * @see docs/documents.md
 */
import type { IncomingMessage } from 'node:http'
import { isOriginAllowed } from './origin.ts'
import { ApiError } from './api-error.ts'

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1'])

/** Splits a Host header into a lowercase name (brackets dropped) and a port. */
function parseHost(host: string): { name: string; port: number | undefined } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(host)
  if (m === null) return undefined
  return { name: (m[1] ?? m[2] ?? '').toLowerCase(), port: m[3] === undefined ? undefined : Number(m[3]) }
}

/** Throws API_HOST_NOT_ALLOWED unless `Host` names this sidecar by a loopback name or its bind host, on its port. */
export function checkHost(host: string | undefined, bind: { host: string; port: number }): void {
  const parsed = host === undefined ? undefined : parseHost(host)
  const names = new Set([...LOOPBACK_NAMES, bind.host.toLowerCase().replace(/^\[|\]$/g, '')])
  const portOk = parsed?.port === undefined ? bind.port === 80 : parsed.port === bind.port
  if (parsed === undefined || !names.has(parsed.name) || !portOk) {
    throw new ApiError('API_HOST_NOT_ALLOWED', 'this API answers only on a loopback host name of this sidecar')
  }
}

/**
 * The origin to name in CORS headers (undefined for a local program), or API_ORIGIN_NOT_ALLOWED.
 */
export function checkOrigin(req: IncomingMessage, allowedOrigins: readonly string[]): string | undefined {
  const origin = req.headers.origin
  if (origin !== undefined) {
    if (origin === 'null' || !isOriginAllowed(origin, allowedOrigins))
      throw new ApiError('API_ORIGIN_NOT_ALLOWED', "this page's origin may not use the documents API")
    return origin
  }
  const site = req.headers['sec-fetch-site']
  if (site === undefined || site === 'same-origin') return undefined
  throw new ApiError('API_ORIGIN_NOT_ALLOWED', 'a browser request must carry an allowed Origin')
}
