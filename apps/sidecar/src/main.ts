/** Composition root of `e2e-col-sidecar`: config → sidecar → signal handlers. */
import { parseArgs, HELP } from './cli/cli.ts'
import { DocsCliError, runDocsCommand } from './cli/docs-cli.ts'
import { defaultDataDir, loadConfig } from './config.ts'
import { exitCodeFor } from './errors.ts'
import {
  INSPECT_UNKNOWN_EXIT,
  InspectError,
  defaultStores,
  formatReport,
  inspectDocument,
  inspectFirst,
} from './cli/inspect.ts'
import { createLogger } from './ops/logger.ts'
import { startSidecar } from './sidecar.ts'

const cmd = parseArgs(process.argv.slice(2), process.env)
if (cmd.kind === 'help') process.stdout.write(cmd.text ?? HELP)
else if (cmd.kind === 'docs') {
  try {
    process.stdout.write(await runDocsCommand(cmd.command))
  } catch (error) {
    const e =
      error instanceof DocsCliError
        ? error
        : new DocsCliError('UNEXPECTED', error instanceof Error ? error.message : String(error), 1)
    process.stderr.write(
      cmd.command.json
        ? `${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`
        : `e2e-col-sidecar docs ${cmd.command.action}: ${e.code}: ${e.message}\n`,
    )
    process.exitCode = e.exitCode
  }
} else if (cmd.kind === 'usage-error') {
  process.stderr.write(`e2e-col-sidecar: ${cmd.message}\n`)
  process.exitCode = 2
} else if (cmd.kind === 'inspect') {
  try {
    const named = cmd.dataDir ?? process.env['E2E_COL_DATA_DIR']
    // No store named: the first of e2e-col up's, npm start's and the default that holds the document.
    const { report, alsoIn } =
      named === undefined
        ? inspectFirst(defaultStores(defaultDataDir(process.env), process.cwd()), cmd.docId)
        : { report: inspectDocument(named, cmd.docId), alsoIn: [] }
    process.stdout.write(cmd.json ? `${JSON.stringify(report)}\n` : formatReport(report))
    for (const p of alsoIn)
      if (!cmd.json)
        process.stdout.write(`also in ${p.whose} store: e2e-col inspect --doc ${cmd.docId} --data-dir ${p.dir}\n`)
  } catch (error) {
    process.stderr.write(
      `e2e-col-sidecar inspect: ${error instanceof Error ? error.message.replace(/\n/g, ' ') : String(error)}\n`,
    )
    process.exitCode = error instanceof InspectError ? INSPECT_UNKNOWN_EXIT : exitCodeFor(error)
  }
} else {
  try {
    const config = loadConfig(process.env, cmd.configFile === undefined ? {} : { configFile: cmd.configFile })
    const logger = createLogger(config.logLevel)
    const sidecar = await startSidecar(config, {
      logger,
      onFatal: (error) => {
        process.stderr.write(`e2e-col-sidecar: ${error.message.replace(/\n/g, ' ')}\n`)
        process.exit(exitCodeFor(error))
      },
    })
    const stop = () => void sidecar.close().then(() => process.exit(0))
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  } catch (error) {
    process.stderr.write(
      `e2e-col-sidecar: ${error instanceof Error ? error.message.replace(/\n/g, ' ') : String(error)}\n`,
    )
    process.exit(exitCodeFor(error))
  }
}
