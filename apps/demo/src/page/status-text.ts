/** Words the page shows for the client's status. */
import type { ClientStatus } from '@e2e-col/client'

/** "all changes saved", "1 change waiting", "3 changes waiting". */
export function pendingText(pending: number): string {
  if (pending <= 0) return 'all changes saved'
  return pending === 1 ? '1 change waiting' : `${pending} changes waiting`
}

const changes = (n: number): string => (n === 1 ? '1 change' : `${n} changes`)

/** Why Signal has not taken them, as a person reads it ("Signal is unreachable since 10:42"). */
function whyNotSent(status: ClientStatus, time: (ms: number) => string): string {
  const { signal, since } = status.delivery
  const at = since === null ? '' : ` since ${time(since)}`
  if (signal === 'unreachable') return `Signal is unreachable${at}`
  if (signal === 'daemon-down') return `signal-cli is not running${at}`
  return 'sending…'
}

/**
 * The one sentence for the weakest state any change is in: saved in this browser only, saved by
 * your sidecar (on this computer) but not yet sent, refused by Signal, or all sent.
 */
export function statusText(status: ClientStatus, time: (ms: number) => string): string {
  if (!status.loaded) return 'loading…'
  const { delivery } = status
  if (status.weakest === 'browser') {
    if (status.connection !== 'connected')
      return `${changes(status.pending)} saved in this browser, not yet at e2e-col on this computer: it does not answer`
    return pendingText(status.pending)
  }
  if (delivery.signal === 'refused') {
    const reason = delivery.reason === null ? '' : ` (${delivery.reason})`
    return `not sent: Signal refused a change${reason}. Your changes are kept on this computer; check the group and its safety numbers in Signal, then edit again`
  }
  if (status.weakest === 'sidecar')
    return `${changes(delivery.unsent)} saved on this computer, not yet sent: ${whyNotSent(status, time)}`
  if (delivery.signal === 'unreachable' || delivery.signal === 'daemon-down')
    return `all changes saved; new ones are kept until ${delivery.signal === 'unreachable' ? 'Signal is reachable' : 'signal-cli runs'} again`
  return 'all changes saved'
}

/** The connection pill's label. */
export function connectionText(connection: 'connecting' | 'connected' | 'offline'): string {
  return { connecting: 'connecting…', connected: 'connected', offline: 'offline' }[connection]
}

/**
 * What the page advises while it cannot reach the sidecar, or `null` once it can. While it is
 * still trying (`connecting`) the advice stays as it was (`undefined`), so a retry does not flicker.
 */
export function adviceText(
  connection: 'connecting' | 'connected' | 'offline',
  browserOnline: boolean,
): string | null | undefined {
  if (connection === 'connected') return null
  if (connection === 'connecting') return undefined
  if (!browserOnline)
    return 'This browser is offline. Keep editing: your edits are kept in this browser and sent when it is back online.'
  return (
    'e2e-col is not running on this computer (the app that carries your documents over Signal). ' +
    'Keep editing: your edits are kept in this browser. Start it again: `npm start` (the demo; while it runs, ' +
    'type `a` or `b` and Enter in its terminal) or `e2e-col up`; this page reconnects and sends them by itself.'
  )
}
