import { ClientError } from './errors.ts'

/**
 * The WebSocket URL of one document on a sidecar: `ws://HOST:PORT/v1/docs/<docId>`.
 * @param sidecarUrl - the sidecar's base URL; `http(s)` is mapped to `ws(s)`, a path prefix is kept
 * @throws ClientError `CLIENT_BAD_SIDECAR_URL`
 */
export function documentUrl(sidecarUrl: string, docId: string): string {
  let url: URL
  try {
    url = new URL(sidecarUrl)
  } catch (cause) {
    throw new ClientError('CLIENT_BAD_SIDECAR_URL', 'sidecar URL is not a valid URL', { cause })
  }
  const scheme = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' }[url.protocol]
  if (scheme === undefined) {
    throw new ClientError('CLIENT_BAD_SIDECAR_URL', `sidecar URL must be http(s) or ws(s), got ${url.protocol}`)
  }
  const base = url.pathname.replace(/\/+$/, '')
  return `${scheme}//${url.host}${base}/v1/docs/${docId}`
}
