/**
 * Sidecar A in its own process, so its memory can be measured apart from the clients and the toy.
 * Driven over IPC by memory-scale.ts: `start` (env) → `started` (port); `measure` → `memory`
 * (after a full collection unless `gc` is false); `stop`.
 */
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'

type Request = { type: 'start'; env: Record<string, string> } | { type: 'measure'; gc: boolean } | { type: 'stop' }

let sidecar: RunningSidecar | undefined
const reply = (message: object): void => {
  process.send?.(message)
}

process.on('message', (raw: unknown) => {
  const request = raw as Request
  void (async () => {
    switch (request.type) {
      case 'start':
        sidecar = await startSidecar(loadConfig(request.env))
        reply({ type: 'started', port: sidecar.port })
        break
      case 'measure':
        if (request.gc) (globalThis as { gc?: () => void }).gc?.()
        reply({ type: 'memory', ...process.memoryUsage() })
        break
      case 'stop':
        await sidecar?.close()
        process.exit(0)
    }
  })().catch((error: unknown) => {
    reply({ type: 'failed', message: String(error) })
  })
})
