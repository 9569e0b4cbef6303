/**
 * The daemon e2e-col starts itself: Java 21+ and signal-cli found (versions printed), its config
 * folder under the state folder (0700), a free loopback port, supervised with a rotated log.
 */
import {
  findJava21,
  jvmFolders,
  findSignalCli,
  freePort,
  javaInstallHint,
  readOsRelease,
  openRotatingLog,
  asRuntimeError,
  signalCliInstallHint,
  superviseDaemon,
  type SupervisedDaemon,
} from '@e2e-col/signal-cli-runtime'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'
import { privateDir, type StateLayout } from './state-dir.ts'
import type { Terminal } from './terminal.ts'

/** Finds the runtime, prints what it will use, starts the supervised daemon. @throws CliError */
export async function startManagedDaemon(
  layout: StateLayout,
  term: Terminal,
  env: Record<string, string | undefined>,
): Promise<SupervisedDaemon> {
  const java = findJava21(env, jvmFolders(process.platform, env))
  if (!java.found)
    throw new CliError('CLI_NO_JAVA', EXIT.noJava, java.reason, javaInstallHint(process.platform, readOsRelease()))
  const signalCli = findSignalCli(env, java.javaHome)
  if (!signalCli.found)
    throw new CliError('CLI_NO_SIGNAL_CLI', EXIT.noSignalCli, signalCli.reason, signalCliInstallHint(process.platform))
  term.say(`Using Java ${java.major} (${java.javaHome})`)
  term.say(`Using signal-cli ${signalCli.launcher.version} (${signalCli.launcher.source}: ${signalCli.launcher.path})`)
  privateDir(layout.root)
  privateDir(layout.signalCliDir)
  const port = await freePort()
  term.say(
    `Starting the signal-cli daemon on 127.0.0.1:${port} (log: ${layout.daemonLog}; a cold start takes 10-30 s)…`,
  )
  try {
    return await superviseDaemon(
      {
        launcher: signalCli.launcher.path,
        javaHome: java.javaHome,
        configDir: layout.signalCliDir,
        port,
        log: openRotatingLog(layout.daemonLog),
      },
      {
        onEvent: (event) => {
          if (event.kind === 'exited')
            term.say(
              `signal-cli daemon stopped (${event.code}); restarting in ${Math.round(event.restartInMs / 1000)} s`,
            )
          else if (event.kind === 'restarted') term.say('signal-cli daemon restarted')
          else
            term.say(
              `signal-cli daemon restart failed (${event.message}); next try in ${Math.round(event.restartInMs / 1000)} s`,
            )
        },
      },
    )
  } catch (thrown) {
    const error = asRuntimeError(thrown)
    if (error === undefined) throw thrown
    const hint =
      error.code === 'DAEMON_CONFIG_LOCKED'
        ? `stop the other signal-cli using ${layout.signalCliDir} (an \`e2e-col up\` still running?), then run this again`
        : error.code === 'DAEMON_PORT_TAKEN'
          ? 'run this again (a new free port is picked each time)'
          : `see ${layout.daemonLog} for signal-cli's own words; run this again once fixed`
    throw new CliError('CLI_DAEMON_FAILED', EXIT.daemon, error.message, hint, { cause: error })
  }
}

/** Checks that a daemon the person runs answers. @throws CliError CLI_DAEMON_UNREACHABLE */
export async function checkExternalDaemon(url: string): Promise<void> {
  try {
    const res = await fetch(`${url}/api/v1/check`, { signal: AbortSignal.timeout(10_000) })
    await res.body?.cancel()
    if (res.status === 200) return
    throw new Error(`GET /api/v1/check answered ${res.status}`)
  } catch (error) {
    throw new CliError(
      'CLI_DAEMON_UNREACHABLE',
      EXIT.daemon,
      `no signal-cli daemon answers at ${url} (${(error as Error).message})`,
      'start it (`signal-cli daemon --http 127.0.0.1:PORT --receive-mode on-connection`) or drop --daemon-url to let e2e-col start one',
      { cause: error },
    )
  }
}
