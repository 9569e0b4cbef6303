export { connectDoc } from './client.ts'
// The binding's public shapes: options, status, events, the connection handle, the origins.
export * from './connection.ts'
export { browserLifecycle, type PageLifecycle } from './page-lifecycle.ts'
export { weakestState, NO_DELIVERY, type ChangeState, type DeliveryStatus } from './delivery-status.ts'
export { chooseEncoding, Coalescer, DEFAULT_MERGE_LIMIT, type FlushEncoding } from './coalescer.ts'
export { ClientError, type ClientErrorCode } from './errors.ts'
export { createIndexedDbStorage, type IndexedDbStorageOptions } from './indexeddb-storage.ts'
export { documentUrl } from './sidecar-url.ts'
export {
  createMemoryStorage,
  type ClientStorage,
  type OutboxEntry,
  type RescueSlot,
  type StorageCommit,
  type StoredDoc,
} from './storage.ts'
export {
  E2eColProvider,
  type E2eColProviderEvents,
  type E2eColProviderOptions,
  type ProviderDelivery,
  type ProviderStatus,
  type WebSocketPolyfill,
} from './provider.ts'
export { DEFAULT_PRESENCE_IDLE_MS, DEFAULT_PRESENCE_INTERVAL_MS, PEER_EXPIRY_MS } from './awareness-channel.ts'
export { authorTagKey, localAuthorTagCache, memoryAuthorTagCache, type AuthorTagCache } from './derived-client-id.ts'
