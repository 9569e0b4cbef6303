/** Composition root of `e2e-col-sidecar`: config → sidecar → signal handlers. */
import { parseArgs, HELP } from './cli.ts'
import { loadConfig } from './config.ts'
import { exitCodeFor } from './errors.ts'
import { createLogger } from './ops/logger.ts'
import { startSidecar } from './sidecar.ts'

const cmd = parseArgs(process.argv.slice(2))
if (cmd.kind === 'help') process.stdout.write(HELP)
else if (cmd.kind === 'usage-error') {
  process.stderr.write(`e2e-col-sidecar: ${cmd.message}\n`)
  process.exitCode = 2
} else {
  try {
    const config = loadConfig(process.env, cmd.configFile === undefined ? {} : { configFile: cmd.configFile })
    const logger = createLogger(config.logLevel)
    const sidecar = await startSidecar(config, { logger })
    const stop = () => void sidecar.close().then(() => process.exit(0))
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  } catch (error) {
    process.stderr.write(`e2e-col-sidecar: ${error instanceof Error ? error.message.replace(/\n/g, ' ') : String(error)}\n`)
    process.exit(exitCodeFor(error))
  }
}
