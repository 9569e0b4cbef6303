/**
 * Composition root of the `toy-signal` binary. The first stdout line is `toy-signal listening on URL`
 * (tests read it to find the port); numbers are printed masked.
 */
import { maskNumber } from './account-mask.ts'
import { parseCliOptions } from './cli-options.ts'
import { ToySignalError } from './errors.ts'
import { HELP } from './help.ts'
import { createToySignal } from './toy-signal.ts'

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(HELP)
  process.exit(0)
}

try {
  const { toy, verbose } = parseCliOptions(process.argv.slice(2))
  const daemon = await createToySignal(verbose ? { ...toy, log: (line) => console.error(`debug ${line}`) } : toy)
  console.log(`toy-signal listening on ${daemon.url}`)
  const mode = toy.singleAccount === undefined ? 'multi-account' : 'single-account'
  const accounts = toy.singleAccount === undefined ? (toy.accounts ?? []) : [toy.singleAccount]
  console.log(
    `toy-signal ${mode} mode, accounts: ${accounts.map(maskNumber).join(' ') || '(none)'}${toy.faults === true ? ', faults on (/toy/v1/)' : ''}`,
  )
  for (const g of daemon.groups)
    console.log(`toy-signal group ${JSON.stringify(g.name)} id ${g.id} members ${g.members.map(maskNumber).join(' ')}`)
  const stop = (): void => {
    void daemon.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
} catch (error) {
  console.error(error instanceof ToySignalError ? `toy-signal: ${error.code}: ${error.message}` : error)
  process.exit(2)
}
