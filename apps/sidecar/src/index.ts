/** `@e2e-col/sidecar`: the bridge between browsers (WebSocket) and a signal-cli daemon. */
export { loadConfig, type SidecarConfig } from './config.ts'
export { startSidecar, type RunningSidecar, type SidecarDeps } from './sidecar.ts'
export { SidecarError, exitCodeFor, type SidecarErrorCode } from './errors.ts'
export { createLogger, type Logger } from './ops/logger.ts'
