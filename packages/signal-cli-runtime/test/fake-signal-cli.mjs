#!/usr/bin/env node
// A stand-in for the signal-cli launcher: parses `--config DIR daemon --http HOST:PORT`, serves
// GET /api/v1/check, and behaves as FAKE_SIGNAL_CLI says: `ok` (default), `locked` (prints
// signal-cli's lock message and waits), `port-taken` (prints a BindException and exits 1), `die`
// (exits 3 after FAKE_SIGNAL_CLI_DIE_MS). POST /die makes a running one exit 7.
import { createServer } from 'node:http'

const args = process.argv.slice(2)
const http = args[args.indexOf('--http') + 1] ?? ''
const port = Number(http.slice(http.lastIndexOf(':') + 1))
const mode = process.env.FAKE_SIGNAL_CLI ?? 'ok'
console.error(`INFO  DaemonCommand - Starting daemon in multi-account mode (${args.join(' ')})`)
if (mode === 'locked') {
  console.error('INFO  AccountsStore - Config file is in use by another instance, waiting…')
  setInterval(() => {}, 1000)
} else if (mode === 'port-taken') {
  console.error('java.net.BindException: Address already in use')
  process.exit(1)
} else {
  const server = createServer((req, res) => {
    if (req.url === '/api/v1/check') res.writeHead(200).end()
    else if (req.url === '/die') {
      res.writeHead(200).end()
      setTimeout(() => process.exit(7), 10)
    } else res.writeHead(404).end()
  })
  server.listen(port, '127.0.0.1', () =>
    console.error(`INFO  HttpServerHandler - Started HTTP server on /127.0.0.1:${port}`),
  )
  if (mode === 'die') setTimeout(() => process.exit(3), Number(process.env.FAKE_SIGNAL_CLI_DIE_MS ?? 500))
  process.on('SIGTERM', () => process.exit(0))
}
