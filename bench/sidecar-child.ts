/**
 * A sidecar in its own process: for memory measured apart from the clients and the toy (section 5)
 * and for the five-process topology of section 1. Driven over IPC through BenchChild: `start` (env)
 * → `started` (port); `measure` → `memory` (after a full collection unless `gc` is false, which
 * needs --expose-gc); `stop`.
 */
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'

type Request = { type: 'start'; env: Record<string, string> } | { type: 'measure'; gc: boolean } | { type: 'stop' }

let sidecar: RunningSidecar | undefined
const reply = (message: object): void => {
  process.send?.(message)
}

// The bench is gone (finished or crashed): nothing is left to serve.
process.on('disconnect', () => process.exit(0))

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
