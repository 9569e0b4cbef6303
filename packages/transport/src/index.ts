export { DEFAULT_BACKOFF, nextDelay, type BackoffOptions } from './backoff.ts'
export { Emitter } from './emitter.ts'
export { TransportError, type TransportErrorCode } from './errors.ts'
export {
  WebSocketTransport,
  type NetworkEvents,
  type RecoveryRequired,
  type SocketClose,
  type TransportEvents,
  type TransportOptions,
  type TransportStatus,
  type WebSocketConstructor,
  type WebSocketLike,
} from './transport.ts'
