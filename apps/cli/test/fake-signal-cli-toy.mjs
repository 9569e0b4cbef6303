#!/usr/bin/env node
// A stand-in signal-cli launcher for tests of the daemon e2e-col manages, without a JVM:
// `--version` prints a version; `--config DIR daemon --http HOST:PORT …` runs the toy daemon on
// that address, with DIR/toy.json as its state when present (as signal-cli keeps its accounts in DIR).
// FAKE_SIGNAL_CLI=locked: prints signal-cli's message for a folder another instance holds, and waits.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const args = process.argv.slice(2)
if (args.includes('--version')) {
  console.log('signal-cli 0.13.19-fake')
  process.exit(0)
}
if (process.env.FAKE_SIGNAL_CLI === 'locked') {
  console.error('INFO  AccountsStore - Config file is in use by another instance, waiting…')
  setInterval(() => {}, 1000)
}
const configDir = args[args.indexOf('--config') + 1] ?? '.'
const http = args[args.indexOf('--http') + 1] ?? '127.0.0.1:8080'
const toyBin = join(
  dirname(createRequire(import.meta.url).resolve('@e2e-col/toy-signal/package.json')),
  'bin',
  'toy-signal.js',
)
const state = join(configDir, 'toy.json')
const toy =
  process.env.FAKE_SIGNAL_CLI === 'locked'
    ? undefined
    : spawn(
        process.execPath,
        [
          toyBin,
          '--http',
          http,
          '--faults',
          // As signal-cli keeps its groups in its folder: a stop of any kind loses none.
          '--groups-file',
          join(configDir, 'toy-groups.json'),
          ...(existsSync(state) ? ['--config', state] : []),
        ],
        { stdio: 'inherit' },
      )
toy?.on('exit', (code) => process.exit(code ?? 1))
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => (toy === undefined ? process.exit(0) : toy.kill(signal)))
