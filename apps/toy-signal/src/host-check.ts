/**
 * signal-cli's Host header validation (v0.14.4+, with the v0.14.5 wildcard-bind exemption): a DNS
 * rebinding guard the toy reproduces so a proxy that forwards a browser's Host fails here as it would
 * against a real daemon (421).
 * @see reference `signal-cli-wire.md` §2
 */

/** True when `host` (the raw Host header, possibly absent) may talk to a server bound to `bindHost:bindPort`. */
export function isHostAllowed(host: string | undefined, bindHost: string, bindPort: number): boolean {
  if (bindHost === '0.0.0.0' || bindHost === '::') return true
  if (host === undefined || host === '') return false
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host)
  if (match === null) return false
  const name = (match[1] ?? '').replace(/^\[|\]$/g, '').toLowerCase()
  const port = match[2]
  if (port !== undefined && Number(port) !== bindPort) return false
  return [bindHost.toLowerCase().replace(/^\[|\]$/g, ''), 'localhost', '127.0.0.1', '::1'].includes(name)
}
