/**
 * Which web pages may open a WebSocket. Browsers always send `Origin`; a request without one
 * comes from a local program, which could forge any Origin anyway, so it is let through.
 * With an empty allowlist only loopback pages (http(s) on localhost, 127.0.0.0/8, [::1]) may connect.
 */
import { isLoopbackHost } from '../config.ts'

export function isOriginAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  if (allowed.length === 0) return isLoopbackHost(url.hostname)
  return allowed.includes(url.origin)
}

/** How many distinct refused origins are named in the log; a page retrying forever is named once. */
export const REFUSED_ORIGINS_NAMED = 32

/**
 * Names each refused origin once (at most {@link REFUSED_ORIGINS_NAMED}, each cut to 200
 * characters: the header is the page's to write), so a person can see which page to allow.
 */
export function refusedOriginReporter(report: (origin: string) => void): (origin: string | undefined) => void {
  const named = new Set<string>()
  return (origin) => {
    const shown = (origin ?? '').slice(0, 200)
    if (named.has(shown) || named.size >= REFUSED_ORIGINS_NAMED) return
    named.add(shown)
    report(shown)
  }
}

// A close reason is at most 123 bytes; an origin is cut to this many characters in it.
const ORIGIN_SHOWN_CHARS = 60

/**
 * The close reason that tells a page its origin is not allowed, naming the origin (as the URL
 * parser writes it: ASCII, so the reason stays within a close frame's 123 bytes).
 */
export function originRefusal(origin: string | undefined): string {
  let shown = "this page's origin"
  try {
    if (origin !== undefined) shown = new URL(origin).origin.slice(0, ORIGIN_SHOWN_CHARS)
  } catch {
    // not a URL: named generically
  }
  return `${shown} is not allowed: add it to E2E_COL_ALLOWED_ORIGINS`
}
