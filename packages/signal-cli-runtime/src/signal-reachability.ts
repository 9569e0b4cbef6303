/**
 * Whether this machine can reach Signal at all: the suites that exercise "Signal is unreachable"
 * run only where Signal's chat host does not resolve, and skip (saying why) where it does.
 */
import { lookup as dnsLookup } from 'node:dns/promises'

/** The host signal-cli reaches Signal's service through. */
export const SIGNAL_CHAT_HOST = 'chat.signal.org'

/**
 * True when {@link SIGNAL_CHAT_HOST} resolves within `timeoutMs` (5 s); false when the lookup fails
 * or hangs that long (a machine without DNS can stall a lookup far longer).
 */
export function resolvesSignalHost(
  options: { timeoutMs?: number; lookup?: (host: string) => Promise<unknown> } = {},
): Promise<boolean> {
  const { timeoutMs = 5_000, lookup = dnsLookup } = options
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    lookup(SIGNAL_CHAT_HOST).then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs)
    }),
  ]).finally(() => clearTimeout(timer))
}
