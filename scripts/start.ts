/**
 * `npm start`: the embedded demo. Starts the toy signal-cli daemon (Alice and Bob in one group), a
 * sidecar for each of them and the demo page, prints the two links, and stops everything on Ctrl-C.
 * While it runs, `sidecars.json` in its folder names the two sidecars (`e2e-col docs` finds them
 * there), and `a` or `b` typed with Enter stops or starts Alice's or Bob's sidecar.
 * E2E_COL_DEMO_DIR moves its folder (tests run it beside a person's own demo).
 */
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseExtraOrigins, startDemoStack, type Who } from '@e2e-col/demo'

// E2E_COL_ALLOWED_ORIGINS: pages of the person's own app (another port) the sidecars accept too.
let extraOrigins: string[]
try {
  extraOrigins = parseExtraOrigins(process.env['E2E_COL_ALLOWED_ORIGINS'])
} catch (error) {
  console.error((error as Error).message)
  process.exit(2)
}
// The sidecars keep their state in the git-ignored .e2e-col-tmp/, so a restart resumes the document.
// E2E_COL_DEMO_DIR puts it elsewhere (the Ctrl-C and npm start tests run on folders of their own).
const dataDir = process.env['E2E_COL_DEMO_DIR'] || fileURLToPath(new URL('../.e2e-col-tmp/demo/', import.meta.url))
const stack = await startDemoStack({ dataDir, extraOrigins })
const PEOPLE: Record<Who, { name: string; key: string }> = {
  alice: { name: 'Alice', key: 'a' },
  bob: { name: 'Bob', key: 'b' },
}
// What `e2e-col docs` reads to find the demo's sidecars (find-sidecar.ts); gone when the demo stops.
const sidecarsFile = join(dataDir, 'sidecars.json')
const nameSidecars = (): void =>
  writeFileSync(
    sidecarsFile,
    `${JSON.stringify({
      sidecars: (['alice', 'bob'] as const).map((who) => ({
        name: PEOPLE[who].name,
        url: stack.sidecarUrl(who),
        restart: `type ${PEOPLE[who].key} and Enter in the terminal running npm start`,
      })),
    })}\n`,
  )
nameSidecars()
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
The same documents from a script: npx e2e-col docs list --as Alice (or --as Bob).
To see a page without its sidecar (edits kept in the browser, sent when it is back): type a and
Enter to stop Alice's sidecar, again to start it; b for Bob's.
Press Ctrl-C to stop.
`)

const stopped = new Set<Who>()
let toggling = Promise.resolve()
// One toggle at a time, in the order typed.
const toggle = (who: Who): void => {
  toggling = toggling
    .then(async () => {
      const { name, key } = PEOPLE[who]
      if (stopped.has(who)) {
        await stack.startSidecar(who)
        stopped.delete(who)
        // Its port may have been taken meanwhile: the file names the one it has now.
        nameSidecars()
        console.log(
          `${name}'s sidecar is running again: ${name}'s pages send what they kept. (${key} + Enter stops it)`,
        )
      } else {
        await stack.stopSidecar(who)
        stopped.add(who)
        console.log(
          `${name}'s sidecar is stopped: ${name}'s pages keep edits in the browser. (${key} + Enter starts it again)`,
        )
      }
    })
    .catch((error: unknown) => console.error(`could not stop or start the sidecar: ${(error as Error).message}`))
}
// The demo runs until Ctrl-C or a kill, whatever its input does: Vite's dev server ends the process
// when standard input ends (outside CI), which reading the keys below would make happen at once for
// an input that is closed (`npm start < /dev/null`, a test's, a service's). Its stop is ours (stop()).
process.stdin.removeAllListeners('end')
createInterface({ input: process.stdin }).on('line', (line) => {
  const key = line.trim().toLowerCase()
  if (key === 'a') toggle('alice')
  else if (key === 'b') toggle('bob')
  else if (key !== '')
    console.log("Type a or b and Enter to stop or start Alice's or Bob's sidecar; Ctrl-C stops everything.")
})

let stopping = false
const stop = (signal: string): void => {
  if (stopping) return
  stopping = true
  console.log(`\n${signal}: stopping the sidecars, the page server and the toy daemon…`)
  rmSync(sidecarsFile, { force: true })
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
