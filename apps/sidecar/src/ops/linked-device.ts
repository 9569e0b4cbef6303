/**
 * Noticing that Signal removed this computer's linked device (a device idle for more than 45 days
 * is removed by Signal's server; the person can also remove it on the phone). A multi-account
 * signal-cli then drops the account: every call naming it is -32602 `Specified account does not
 * exist` and its events stream is refused with 400; a call that reached Signal first fails with an
 * `AuthorizationFailedException` [401] (credentials Signal no longer knows). A [403] is not that:
 * Signal refuses a group change the account may not make (a viewer renaming) with it, so it says
 * nothing about the link (http/library-error.ts reads it as not permitted). The sidecar says so once in the log, on `/healthz`
 * and on the home page, and keeps every unsent change: its send path treats the failure as Signal
 * being away (probing at its backoff, never in a loop) until the account answers again.
 * @see docs/sidecar.md §4.4, README "Use it for real"
 */
import { SIGNAL_LINKED_DEVICE_IDLE_DAYS } from '@e2e-col/signal-cli'
import type { Logger } from './logger.ts'

/** What the home page and `/healthz` say while the device is unlinked. */
export const UNLINKED_NOTICE = 'This computer is no longer linked to your Signal: run `e2e-col setup --link`'

/** Signal's 403: the account may not do this (a group change only admins may make), not an unlinked device. */
export const isRefusedChange = (rpcMessage: string): boolean => /\[403\] Authorization failed/.test(rpcMessage)

/** Whether a daemon failure says the account is no longer registered or linked there. */
export function isUnlinked(error: unknown): boolean {
  // Read by code and fields, never instanceof: a second copy of the client package would not match.
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown
    rpcCode?: unknown
    rpcMessage?: unknown
    status?: unknown
  }
  if (e.code === 'SIDECAR_SIGNAL_RPC_ERROR' && typeof e.rpcMessage === 'string')
    return (
      (e.rpcCode === -32602 && e.rpcMessage === 'Specified account does not exist') ||
      (/AuthorizationFailedException|\[401\] Authorization failed/.test(e.rpcMessage) && !isRefusedChange(e.rpcMessage))
    )
  return e.code === 'SIDECAR_EVENTS_FAILED' && e.status === 400
}

export interface LinkWatch {
  /** True from the first failure that says the device is unlinked until the account answers again. */
  readonly unlinked: boolean
  /** When it was noticed (ms), null while linked. */
  readonly since: number | null
  /**
   * From now on failures count: before, the start-up checks report an unknown account themselves
   * (a misconfigured number is not a removed device).
   */
  start(): void
  /** A daemon call failed: notices an unlinked device (logged once per episode). */
  failed(error: unknown): void
  /** A call naming the account succeeded: linked (again). */
  answered(): void
}

export function createLinkWatch(o: { logger: Logger; now: () => number }): LinkWatch {
  let since: number | null = null
  let started = false
  return {
    start() {
      started = true
    },
    get unlinked() {
      return since !== null
    },
    get since() {
      return since
    },
    failed(error) {
      if (!started || since !== null || !isUnlinked(error)) return
      since = o.now()
      o.logger.error(
        { err: error },
        `${UNLINKED_NOTICE} (Signal removes a linked device idle for more than ${SIGNAL_LINKED_DEVICE_IDLE_DAYS} days); unsent changes are kept`,
      )
    },
    answered() {
      if (since === null) return
      since = null
      o.logger.info('this computer is linked to Signal again; sending resumes')
    },
  }
}

// Calls that do not name the account: their success says nothing about the link.
const ACCOUNT_FREE = new Set(['check', 'version', 'listAccounts', 'close'])

/**
 * The backend with every account call watched: failures go to {@link LinkWatch.failed}, successes
 * to {@link LinkWatch.answered}. Results and errors pass through unchanged.
 */
export function watchLink<T extends object>(backend: T, watch: LinkWatch): T {
  return new Proxy(backend, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function' || typeof key !== 'string' || ACCOUNT_FREE.has(key)) return value
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args)
        if (!(result instanceof Promise)) return result
        return result.then(
          (v: unknown) => {
            watch.answered()
            return v
          },
          (error: unknown) => {
            watch.failed(error)
            throw error
          },
        )
      }
    },
  })
}
