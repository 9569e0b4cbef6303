/** A Hocuspocus provider for Node (its WebSocket from `ws`), synced, and how to close it with its socket. */
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import { WebSocket } from 'ws'
import type * as Y from 'yjs'

export interface HocuspocusClient {
  readonly provider: HocuspocusProvider
  destroy(): void
}

export async function hocuspocusClient(url: string, name: string, document: Y.Doc): Promise<HocuspocusClient> {
  const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket })
  const provider = new HocuspocusProvider({ websocketProvider: socket, name, document })
  // A provider given its socket does not attach to it by itself.
  provider.attach()
  await new Promise<void>((resolve) => {
    if (provider.isSynced) resolve()
    else provider.on('synced', () => resolve())
  })
  return {
    provider,
    destroy() {
      provider.destroy()
      socket.destroy()
    },
  }
}
