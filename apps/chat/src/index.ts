export { runChat, type RunChatDeps } from './chat.ts'
export { loadConfig, isLoopbackUrl, type ChatConfig, type Invocation } from './config.ts'
export { asChatError, ChatError, exitCodeOf, type ChatErrorCode } from './errors.ts'
export { EXIT_CODES, EXIT_CODE_TABLE, type ExitCode } from './exit-codes.ts'
export { chatGroupName, slugify } from './group-name.ts'
export { parseControl, type ControlAction } from './control.ts'
export { gate, type GateConfig, type GateVerdict } from './loop/gate.ts'
export { chunkReply, MAX_SIGNAL_BODY_BYTES } from './loop/chunker.ts'
export { createRedactor, type Redactor } from './redact/redactor.ts'
export { DEFAULT_TIMING, type ChatEvent, type ChatTiming } from './loop/chat-loop.ts'
export { helpText } from './help.ts'
export type { ChatSignal, GroupMembership, InboundMessage } from './signal/port.ts'
export { createChatSignal, type ChatSignalOptions } from './signal/chat-signal.ts'
export { connectSidecarConsole, type SidecarConsole, type SidecarConsoleOptions } from './console/sidecar-console.ts'
export type { ConsolePort, ConsoleInput, ConsoleOutput } from './console/console-port.ts'
export {
  chatIdForGroup,
  consoleInputFromFrame,
  frameFromConsoleOutput,
  MAX_CONSOLE_PROMPT_CHARS,
  type LoopHeader,
} from './console/chat-envelopes.ts'
