/** Words the page shows for the client's status. */

/** "all changes saved", "1 change waiting", "3 changes waiting". */
export function pendingText(pending: number): string {
  if (pending <= 0) return 'all changes saved'
  return pending === 1 ? '1 change waiting' : `${pending} changes waiting`
}

/** The connection pill's label. */
export function connectionText(connection: 'connecting' | 'connected' | 'offline'): string {
  return { connecting: 'connecting…', connected: 'connected', offline: 'offline' }[connection]
}
