/**
 * `npm start`: the embedded demo. Starts the toy signal-cli daemon (Alice and Bob in one group), a
 * sidecar for each of them and the demo page, prints the two links, and stops everything on Ctrl-C.
 */
import { fileURLToPath } from 'node:url'
import { startDemoStack } from '@e2e-col/demo'

// The sidecars keep their state in the git-ignored .e2e-col-tmp/, so a restart resumes the document.
const stack = await startDemoStack({ dataDir: fileURLToPath(new URL('../.e2e-col-tmp/demo/', import.meta.url)) })
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
