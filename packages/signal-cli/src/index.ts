/** `@e2e-col/signal-cli`: the client of a signal-cli daemon (HTTP JSON-RPC + SSE events). */
export type {
  SignalAttachment,
  SignalBackend,
  SignalChatMethods,
  FullSignalBackend,
  SignalEvent,
  SignalEventStream,
  SignalMessage,
  SignalNoteToSelf,
  SkipReason,
} from './backend.ts'
export type {
  GroupChange,
  GroupPermission,
  SafetyState,
  SignalContact,
  SignalDocumentMethods,
  SignalGroupUpdate,
  SignalIdentity,
} from './backend.ts'
export { createHttpSignalBackend, MAX_ATTACHMENT_READ_BYTES, type HttpBackendOptions } from './http-backend.ts'
export { MAX_RPC_RESPONSE_BYTES } from './http-exchange.ts'
export { GroupListing, parseResponse, SendResult } from './jsonrpc.ts'
export { createProvisioningClient, type ProvisioningClient, type ProvisioningClientOptions } from './provisioning.ts'
export { parseReceivePayload } from './receive-payload.ts'
export { readSignalEvents } from './sse-reader.ts'
export { runEventsLoop, type EventsLoop, type EventsLoopOptions, type EventsLogger } from './events-stream.ts'
export { nextDelay, type BackoffPolicy } from './backoff.ts'
export { E164, E164_MESSAGE, e164List, httpOrigin, isLoopbackHost, signalCliAccount, signalCliUrl } from './settings.ts'
export { maskNumber, maskNumbersIn } from './redact.ts'
export { chatIdForGroup } from './chat-id.ts'
export {
  supportsAdminDelete,
  supportsMemberLabels,
  supportsNoUrgent,
  supportsTerminateGroup,
} from './daemon-capabilities.ts'
export {
  SIGNAL_LINKED_DEVICE_IDLE_DAYS,
  SIGNAL_MAX_ATTACHMENT_BYTES,
  SIGNAL_MAX_CONTENT_BYTES,
  SIGNAL_MAX_GROUP_MEMBERS,
} from './platform-limits.ts'
export {
  BroadcastRecoveryRequiredError,
  asSignalCliFailure,
  SIGNAL_CLI_ERROR_CODES,
  SignalCliError,
  type SignalCliFailure,
  SignalEventsRefusedError,
  SignalRpcError,
  SignalUnavailableError,
  type SignalCliErrorCode,
} from './errors.ts'
