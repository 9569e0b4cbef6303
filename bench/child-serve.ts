/**
 * The child side of {@link BenchChild}: serves the parent's IPC requests one handler call each,
 * answers `failed` when a handler throws, and exits when the parent is gone (finished or crashed).
 */

export type Reply = (message: object) => void

const reply: Reply = (message) => {
  process.send?.(message)
}

export function serveBenchRequests<R extends { readonly type: string }>(
  handle: (request: R, reply: Reply) => Promise<void>,
): void {
  process.on('disconnect', () => process.exit(0))
  process.on('message', (raw: unknown) => {
    handle(raw as R, reply).catch((error: unknown) => reply({ type: 'failed', message: String(error) }))
  })
}
