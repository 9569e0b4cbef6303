/** `@e2e-col/signal-cli-runtime`: finding Java and signal-cli, and running a supervised daemon. */
export { findJava21, javaMajor, jvmFolders, MIN_JAVA_MAJOR, type JavaLookup } from './java.ts'
export { javaInstallHint, parseOsRelease, readOsRelease, type OsRelease } from './java-hint.ts'
export {
  findSignalCli,
  launcherVersion,
  npmSignalCli,
  signalCliInstallHint,
  type SignalCliLauncher,
  type SignalCliLookup,
} from './signal-cli-launcher.ts'
export { freePort, startDaemonProcess, type DaemonProcess, type DaemonSpec } from './daemon-process.ts'
export { superviseDaemon, type SupervisedDaemon, type SupervisorEvent, type SupervisorOptions } from './supervisor.ts'
export { spawnInGroup, type GroupChild, type GroupExit } from './process-group.ts'
export { openRotatingLog, type RotatingLog, type RotatingLogOptions } from './rotating-log.ts'
export { asRuntimeError, RUNTIME_ERROR_CODES, RuntimeError, type RuntimeErrorCode } from './errors.ts'
export { resolvesSignalHost, SIGNAL_CHAT_HOST } from './signal-reachability.ts'
