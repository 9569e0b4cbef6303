/**
 * Code written for y-websocket's `WebsocketProvider`, as editor integrations and tutorials write
 * it. `npm run typecheck` compiles this very file twice: with `Provider` bound to y-websocket's
 * class (tsconfig.y-websocket.json), and to E2eColProvider (tsconfig.e2e-col.json). If it compiles
 * against the first and not the second, E2eColProvider is no drop-in.
 */
import { Provider } from 'provider-under-test'
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'

const doc = new Y.Doc()
const awareness = new Awareness(doc)

// Every option y-websocket takes, with the browser's own WebSocket as the polyfill.
export const provider = new Provider('ws://127.0.0.1:7601', '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f', doc, {
  connect: false,
  awareness,
  params: {},
  protocols: ['yjs'],
  WebSocketPolyfill: WebSocket,
  resyncInterval: 5000,
  maxBackoffTime: 2500,
  disableBc: true,
  shouldReconnect: (event: CloseEvent) => event.code !== 4403,
})
// Options spelled with possibly-undefined values (as a wrapper forwarding its own options does).
const maybe: boolean | undefined = undefined
export const second = new Provider('ws://127.0.0.1:7601', '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f', doc, {
  connect: maybe,
  WebSocketPolyfill: undefined,
})

// Events with y-websocket's payload types.
provider.on('status', (event: { status: 'connected' | 'disconnected' | 'connecting' }) => console.log(event.status))
provider.on('sync', (isSynced: boolean) => console.log(isSynced))
provider.on('connection-close', (event: CloseEvent | null) => console.log(event?.code))
provider.on('connection-error', (event: Event) => console.log(event.type))
provider.on('closed', (event: { code: number; reason: string }) => console.log(event.reason))
const onSync = (isSynced: boolean): void => console.log(isSynced)
provider.on('sync', onSync)
provider.off('sync', onSync)
provider.once('sync', onSync)

// Properties, read and (where y-websocket allows it) written.
export const socket: WebSocket | null = provider.ws
export const flags: boolean[] = [
  provider.wsconnected,
  provider.wsconnecting,
  provider.bcconnected,
  provider.synced,
  provider.shouldConnect,
  provider.disableBc,
]
export const numbers: number[] = [
  provider.wsUnsuccessfulReconnects,
  provider.wsLastMessageReceived,
  provider.maxBackoffTime,
]
export const strings: string[] = [provider.url, provider.serverUrl, provider.roomname]
export const params: { [x: string]: string } = provider.params
export const theDoc: Y.Doc = provider.doc
export const theAwareness: Awareness = provider.awareness
provider.shouldConnect = true
provider.synced = false
provider.shouldReconnect = () => true

// Methods.
provider.connect()
provider.disconnect()
provider.connectBc()
provider.disconnectBc()

// A React effect's cleanup must return void: `useEffect(() => () => provider.destroy(), [])`.
type Destructor = () => void | { [UNDEFINED_VOID_ONLY]: never }
declare const UNDEFINED_VOID_ONLY: unique symbol
export const cleanup: Destructor = () => provider.destroy()
export const destroyed: void = provider.destroy()
