/**
 * The toy's account-free flows: device links waiting to be "scanned" (a test scans through the admin
 * route instead of a phone) and registrations waiting for their verification code (the admin route
 * reveals it instead of an SMS). Bounded: at most {@link MAX_PENDING} of each, oldest dropped.
 * @see docs/contract.md §5 and reference `signal-cli-wire.md`
 */

/** How a pending link ended, as `finishLink` sees it. */
export type LinkOutcome = { kind: 'scanned'; number: string } | { kind: 'refused' } | { kind: 'timeout' }

interface PendingLink {
  readonly uri: string
  readonly createdAt: number
  outcome?: LinkOutcome
  waiters: ((outcome: LinkOutcome) => void)[]
}

/** A registration waiting for `verify`. */
export interface PendingRegistration {
  readonly number: string
  readonly code: string
  readonly voice: boolean
}

/** What the provisioning methods and the admin route share. */
export interface ProvisioningState {
  /** Signal's servers are unreachable (the toy's `offline` option): linking and registering fail as offline signal-cli does. */
  readonly offline: boolean
  /** How long `finishLink` waits for a scan before `Link request timed out` (the real one: about a minute). */
  readonly linkTimeoutMs: number
  newLink(uri: string): void
  hasLink(uri: string): boolean
  /** Waits for the link's outcome (scan, refusal, or the timeout); the link is used up either way. */
  awaitLink(uri: string): Promise<LinkOutcome>
  /** The admin route's "scan": false when no such link is waiting. */
  resolveLink(uri: string, outcome: LinkOutcome): boolean
  links(): { deviceLinkUri: string; createdAt: number }[]
  /** Registration: a fresh code for the number (replacing an earlier one). */
  startRegistration(registration: PendingRegistration): void
  registration(number: string): PendingRegistration | undefined
  endRegistration(number: string): void
  registrations(): PendingRegistration[]
  /** Numbers whose next `register` needs a captcha (until one is given). */
  readonly captchaRequired: Set<string>
  /** When true, every number needs a captcha. */
  captchaForAll: boolean
  /** Registration-lock PINs set on numbers "registered elsewhere". */
  readonly pins: Map<string, string>
  /** Wrong PIN tries left per number (signal-cli reports the count). */
  readonly pinTries: Map<string, number>
  /** Ends every wait (the daemon is closing). */
  close(): void
}

export const MAX_PENDING = 64

function bound<K, V>(map: Map<K, V>): void {
  while (map.size > MAX_PENDING) map.delete(map.keys().next().value as K)
}

/** Creates the provisioning state. */
export function createProvisioningState(options: {
  linkTimeoutMs: number
  offline: boolean
  now: () => number
}): ProvisioningState {
  const links = new Map<string, PendingLink>()
  const registrations = new Map<string, PendingRegistration>()
  const timers = new Set<NodeJS.Timeout>()
  const settle = (link: PendingLink, outcome: LinkOutcome): void => {
    link.outcome ??= outcome
    for (const waiter of link.waiters.splice(0)) waiter(link.outcome)
  }
  return {
    offline: options.offline,
    linkTimeoutMs: options.linkTimeoutMs,
    newLink(uri) {
      links.set(uri, { uri, createdAt: options.now(), waiters: [] })
      bound(links)
    },
    hasLink: (uri) => links.has(uri),
    awaitLink(uri) {
      const link = links.get(uri)
      if (link === undefined) return Promise.resolve({ kind: 'timeout' })
      const done = (outcome: LinkOutcome): LinkOutcome => {
        links.delete(uri)
        return outcome
      }
      // Scanned before finishLink was called: the provisioning message is already there.
      if (link.outcome !== undefined) return Promise.resolve(done(link.outcome))
      return new Promise((resolve) => {
        const timer = setTimeout(() => settle(link, { kind: 'timeout' }), options.linkTimeoutMs)
        timers.add(timer)
        link.waiters.push((outcome) => {
          clearTimeout(timer)
          timers.delete(timer)
          resolve(done(outcome))
        })
      })
    },
    resolveLink(uri, outcome) {
      const link = links.get(uri)
      if (link === undefined || link.outcome !== undefined) return false
      settle(link, outcome)
      return true
    },
    links: () =>
      [...links.values()]
        .filter((l) => l.outcome === undefined)
        .map((l) => ({ deviceLinkUri: l.uri, createdAt: l.createdAt })),
    startRegistration(registration) {
      registrations.delete(registration.number)
      registrations.set(registration.number, registration)
      bound(registrations)
    },
    registration: (number) => registrations.get(number),
    endRegistration: (number) => {
      registrations.delete(number)
    },
    registrations: () => [...registrations.values()],
    captchaRequired: new Set(),
    captchaForAll: false,
    pins: new Map(),
    pinTries: new Map(),
    close() {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      for (const link of links.values()) settle(link, { kind: 'timeout' })
      links.clear()
    },
  }
}
