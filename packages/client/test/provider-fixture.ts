import type { WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import { createMemoryStorage, type E2eColProviderOptions } from '../src/index.ts'

/** A provider's options for Node against the simulated sidecar: ws, memory storage, no page, fast flushes. */
export function nodeProviderOptions(): E2eColProviderOptions {
  return {
    WebSocketPolyfill: WebSocket as unknown as WebSocketConstructor,
    storage: createMemoryStorage(),
    lifecycle: null,
    flushWindowMs: 10,
    transport: { network: null },
  }
}
