/** Composition root of the `e2e-col` bin: parse, run, print the failure and what to do, exit. */
import { parseCommand } from './args.ts'
import { runChatBinary } from './chat-passthrough.ts'
import { asCliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'
import { HELP } from './help.ts'
import { runSetup } from './setup.ts'
import { systemOpener } from './opener.ts'
import { runSidecarBinary } from './sidecar-passthrough.ts'
import { processTerminal } from './terminal.ts'
import { runUp } from './up.ts'

async function main(): Promise<number> {
  const term = processTerminal()
  try {
    const cmd = parseCommand(process.argv.slice(2))
    if (cmd.kind === 'help') {
      process.stdout.write(HELP)
      return EXIT.ok
    }
    if (cmd.kind === 'chat') return await runChatBinary(cmd.args)
    if (cmd.kind === 'sidecar') return await runSidecarBinary(cmd.args)
    if (cmd.kind === 'setup') {
      // Ctrl-C during setup: exit 130 as shells expect; the 'exit' handlers kill the daemon's group.
      process.once('SIGINT', () => process.exit(130))
      process.once('SIGTERM', () => process.exit(143))
      return await runSetup(cmd, { term, env: process.env })
    }
    // The first Ctrl-C stops everything in order; a second one exits at once (the 'exit'
    // handlers still SIGKILL every child's process group).
    let signals = 0
    const stopRequested = new Promise<string>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.on(signal, () => {
          if (++signals > 1) process.exit(EXIT.interrupted)
          resolve(signal)
        })
      }
    })
    return await runUp(cmd, {
      term,
      env: process.env,
      stopRequested,
      opener: systemOpener(process.env, process.platform),
    })
  } catch (error) {
    const known = asCliError(error)
    if (known !== undefined) {
      process.stderr.write(
        `\ne2e-col: ${known.message}\n  what to do: ${known.hint}\n  (${known.code}, exit ${known.exitCode})\n`,
      )
      return known.exitCode
    }
    process.stderr.write(
      `\ne2e-col: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    return EXIT.unexpected
  }
}

process.exit(await main())
