/**
 * The sidecar as installed: the bundle its bin runs (`bundle`, scripts/bundle-sidecar.ts) or tsc's
 * dist/ not bundled (`dist`), as its first argument says; both what `npm run pack:packages` packs,
 * run under plain `node`, no tsx, no source condition. Driven over
 * IPC like bench/sidecar-child.ts: `start` (env) → `started` (port, readyMs from process start);
 * `measure` (gc) → `memory`; `settle` → `settled` (settle.mjs); `cpu` → `cpu` (process.cpuUsage, µs); `stop`.
 */
const entry = process.argv[2] === 'dist' ? '@e2e-col/sidecar' : '../../apps/sidecar/dist/bundle/index.js'
const { loadConfig, startSidecar } = await import(entry)
import { settle } from './settle.mjs'

let sidecar
process.on('disconnect', () => process.exit(0))
process.on('message', (request) => {
  handle(request).catch((error) => process.send?.({ type: 'failed', message: String(error) }))
})

async function handle(request) {
  switch (request.type) {
    case 'start':
      sidecar = await startSidecar(loadConfig(request.env))
      process.send?.({ type: 'started', port: sidecar.port, readyMs: performance.now() })
      break
    case 'measure':
      if (request.gc) globalThis.gc?.()
      process.send?.({ type: 'memory', ...process.memoryUsage() })
      break
    case 'settle':
      process.send?.({ type: 'settled', ...(await settle()) })
      break
    case 'cpu':
      process.send?.({ type: 'cpu', ...process.cpuUsage() })
      break
    case 'stop':
      await sidecar?.close()
      process.exit(0)
  }
}
