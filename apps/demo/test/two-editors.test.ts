/**
 * Two real browsers, one per sidecar, editing the demo document through the toy Signal daemon.
 * Requires Debian's Chromium (`apt-get install chromium`; `.ci/run` does it).
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import type { Who } from '../src/index.ts'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import { STACK_WITH_FAULTS, typeAtEnd, useBrowserStack } from './pages.ts'

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

interface DemoHandle {
  text(): string
  status(): { connection: string; pending: number; loaded: boolean }
}
declare global {
  interface Window {
    e2eColDemo?: DemoHandle
  }
}

function textOf(page: Page): Promise<string> {
  return page.evaluate(() => window.e2eColDemo?.text() ?? '')
}

async function waitForText(page: Page, needle: string): Promise<void> {
  await page.waitForFunction((n) => window.e2eColDemo?.text().includes(n) === true, needle, { timeout: 20_000 })
}

interface StatusWanted {
  connected?: boolean
  loaded?: boolean
  /** true: some change waits; false: none. */
  pending?: boolean
}

/** Waits until the client's status (read through the page's debug handle) has every wanted property. */
async function waitForStatus(page: Page, want: StatusWanted): Promise<void> {
  await page.waitForFunction(
    (w) => {
      const s = window.e2eColDemo?.status()
      if (s === undefined) return false
      return (
        (w.connected === undefined || (s.connection === 'connected') === w.connected) &&
        (w.loaded === undefined || s.loaded === w.loaded) &&
        (w.pending === undefined || s.pending > 0 === w.pending)
      )
    },
    want,
    { timeout: 20_000 },
  )
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('two people editing in real browsers', () => {
  const run = useBrowserStack(STACK_WITH_FAULTS, {
    async prepare(page, who, stack) {
      await page.goto(stack.link(who))
      await waitForStatus(page, { connected: true, loaded: true })
    },
  })
  const { pages } = run

  const type = (who: Who, text: string): Promise<void> => typeAtEnd(pages[who], '.cm-content', text)

  test("text typed in Alice's page appears in Bob's, and the reverse", async () => {
    await type('alice', 'Hello from Alice. ')
    await waitForText(pages.bob, 'Hello from Alice. ')
    await type('bob', 'Hi Alice, Bob here. ')
    await waitForText(pages.alice, 'Hi Alice, Bob here. ')
    await waitForShown(pages.bob, '#pending', /^all changes saved$/)
    await waitForShown(pages.alice, '#pending', /^all changes saved$/)
  })

  test('concurrent typing in both pages converges to the same text', async () => {
    await Promise.all([type('alice', '[alice typing at the same time]'), type('bob', '[bob typing at the same time]')])
    for (const page of [pages.alice, pages.bob]) {
      await waitForText(page, '[alice typing at the same time]')
      await waitForText(page, '[bob typing at the same time]')
    }
    const [a, b] = await Promise.all([textOf(pages.alice), textOf(pages.bob)])
    expect(a).toBe(b)
  })

  test("Alice's edits made offline survive a reload and reach Bob once her sidecar is back", async () => {
    await run.stack.stopSidecar('alice')
    await waitForStatus(pages.alice, { connected: false })
    await type('alice', 'Written while offline.')
    await waitForStatus(pages.alice, { pending: true })
    await waitForShown(pages.alice, '#status', /^(offline|connecting…)$/)
    await waitForShown(
      pages.alice,
      '#pending',
      /^\d+ changes? saved in this browser, not yet at e2e-col on this computer/,
    )

    await pages.alice.reload()
    await waitForStatus(pages.alice, { loaded: true })
    // Straight from IndexedDB: the sidecar is still down.
    expect(await textOf(pages.alice)).toContain('Written while offline.')
    await waitForStatus(pages.alice, { pending: true })

    await run.stack.startSidecar('alice')
    await waitForText(pages.bob, 'Written while offline.')
    await waitForStatus(pages.alice, { connected: true, pending: false })
    await waitForShown(pages.alice, '#pending', /^all changes saved$/)
    const [a, b] = await Promise.all([textOf(pages.alice), textOf(pages.bob)])
    expect(a).toBe(b)

    mkdirSync(ARTIFACTS, { recursive: true })
    await pages.alice.screenshot({ path: `${ARTIFACTS}demo-alice.png` })
    await pages.bob.screenshot({ path: `${ARTIFACTS}demo-bob.png` })
  })

  test('without network the page stays connected and says the changes are saved on this computer, not yet sent; then all saved', async () => {
    run.stack.toy.faults.setNetworkLoss(true)
    await type('alice', 'Typed on a train. ')
    await waitForShown(
      pages.alice,
      '#pending',
      /^\d+ changes? saved on this computer, not yet sent: Signal is unreachable since \d/,
    )
    await waitForShown(pages.alice, '#status', /^connected$/)
    mkdirSync(ARTIFACTS, { recursive: true })
    await pages.alice.screenshot({ path: `${ARTIFACTS}demo-alice-offline.png` })
    run.stack.toy.faults.setNetworkLoss(false)
    await waitForText(pages.bob, 'Typed on a train. ')
    await waitForShown(pages.alice, '#pending', /^all changes saved$/)
    await waitForShown(pages.alice, '#status', /^connected$/)
  })
})
