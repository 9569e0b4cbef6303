/**
 * A sidecar in its own process: for memory measured apart from the clients and the toy (section 5)
 * and for the five-process topology of section 1. Driven over IPC through BenchChild: `start` (env)
 * → `started` (port); `measure` → `memory` (after a full collection unless `gc` is false, which
 * needs --expose-gc); `settle` → `settled` (RSS once it stopped changing, scale/settle.mjs); `stop`.
 */
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { serveBenchRequests } from './child-serve.ts'
import { settle } from './scale/settle.mjs'

type Request =
  | { type: 'start'; env: Record<string, string> }
  | { type: 'measure'; gc: boolean }
  | { type: 'settle' }
  | { type: 'stop' }

let sidecar: RunningSidecar | undefined
serveBenchRequests<Request>(async (request, reply) => {
  switch (request.type) {
    case 'start':
      sidecar = await startSidecar(loadConfig(request.env))
      reply({ type: 'started', port: sidecar.port })
      break
    case 'measure':
      if (request.gc) (globalThis as { gc?: () => void }).gc?.()
      reply({ type: 'memory', ...process.memoryUsage() })
      break
    case 'settle':
      reply({ type: 'settled', ...(await settle()) })
      break
    case 'stop':
      await sidecar?.close()
      process.exit(0)
  }
})
