/**
 * `npm start`: the embedded demo. Starts the toy signal-cli daemon (Alice and Bob in one group), a
 * sidecar for each of them and the demo page, prints the two links, and stops everything on Ctrl-C.
 */
import { fileURLToPath } from 'node:url'
import { parseExtraOrigins, startDemoStack } from '@e2e-col/demo'

// E2E_COL_ALLOWED_ORIGINS: pages of the person's own app (another port) the sidecars accept too.
let extraOrigins: string[]
try {
  extraOrigins = parseExtraOrigins(process.env['E2E_COL_ALLOWED_ORIGINS'])
} catch (error) {
  console.error((error as Error).message)
  process.exit(2)
}
// The sidecars keep their state in the git-ignored .e2e-col-tmp/, so a restart resumes the document.
// E2E_COL_DEMO_DATA_DIR puts it elsewhere (the Ctrl-C test runs `npm start` on a folder of its own).
const stack = await startDemoStack({
  dataDir: process.env['E2E_COL_DEMO_DATA_DIR'] || fileURLToPath(new URL('../.e2e-col-tmp/demo/', import.meta.url)),
  extraOrigins,
})
console.log(`
e2e-col demo is running: two people, Alice and Bob, who already share one document, carried
through a local toy Signal.

  Alice:  ${stack.homeLink('alice')}
  Bob:    ${stack.homeLink('bob')}

Open both links (side by side, or in two browsers): open the shared document and type in either
editor, or make a new document on Alice's page and share it with Bob; he accepts it on his.

The shared document as rich text (ProseMirror through E2eColProvider, with each other's cursors):
  Alice:  ${stack.link('alice', 'rich')}
  Bob:    ${stack.link('bob', 'rich')}

${
  extraOrigins.length === 0
    ? 'Your own app on another port? Start with E2E_COL_ALLOWED_ORIGINS=http://127.0.0.1:3000 npm start'
    : `The sidecars also accept pages from ${extraOrigins.join(', ')} (E2E_COL_ALLOWED_ORIGINS).`
}
Press Ctrl-C to stop.
`)

let stopping = false
const stop = (signal: string): void => {
  if (stopping) return
  stopping = true
  console.log(`\n${signal}: stopping the sidecars, the page server and the toy daemon…`)
  stack.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('shutdown failed:', error)
      process.exit(1)
    },
  )
}
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
