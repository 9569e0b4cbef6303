/** e2e-col: E2eColProvider against two sidecars (Alice's, Bob's) over the toy daemon, in Node with `ws`. */
import type { AddressInfo } from 'node:net'
import { createMemoryStorage, E2eColProvider, type WebSocketPolyfill } from '@e2e-col/client'
import { startDemoStack } from '@e2e-col/demo'
import { WebSocket, WebSocketServer } from 'ws'
import type * as Y from 'yjs'
import { logged, type Opened, type ProviderTarget } from './provider-target.ts'

export async function startE2eColTarget(): Promise<ProviderTarget> {
  const stack = await startDemoStack({
    page: false,
    sidecarPorts: [0, 0],
    sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent', E2E_COL_SENDS_PER_SECOND: '10' },
  })
  const dead = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((resolve) => dead.once('listening', resolve))
  const deadUrl = `ws://127.0.0.1:${(dead.address() as AddressInfo).port}`
  await new Promise<void>((resolve) => dead.close(() => resolve()))
  const providers: E2eColProvider[] = []
  return {
    kind: 'e2e-col',
    room: stack.docId,
    deadUrl,
    open(who, doc: Y.Doc, options = {}): Opened {
      const { serverUrl, room, wrapWebSocket, connect, awareness, ...rest } = options
      const provider = new E2eColProvider(serverUrl ?? stack.sidecarUrl(who), room ?? stack.docId, doc, {
        ...rest,
        ...(connect === undefined ? {} : { connect }),
        ...(awareness === undefined ? {} : { awareness }),
        WebSocketPolyfill: (wrapWebSocket?.(WebSocket) ?? WebSocket) as unknown as WebSocketPolyfill,
        // A fresh browser each time (no IndexedDB in Node), no page to hide, edits sent soon.
        storage: createMemoryStorage(),
        lifecycle: null,
        flushWindowMs: 20,
        syncResponseDelayMs: { min: 0, max: 5 },
        transport: { network: null },
      })
      providers.push(provider)
      return logged(provider)
    },
    async restartServer(who) {
      await stack.stopSidecar(who)
      await stack.startSidecar(who)
    },
    async close() {
      const all = providers.splice(0)
      for (const p of all) p.destroy()
      await Promise.all(all.map((p) => p.whenDestroyed))
      await stack.close()
    },
  }
}
