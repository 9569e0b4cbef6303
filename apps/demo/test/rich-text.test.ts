/**
 * The rich-text page: ProseMirror + y-prosemirror through E2eColProvider, two real browsers through
 * two sidecars and the toy Signal daemon. Proves the provider works with a binding written for
 * y-websocket's shape, and that presence (cursors with names, the "is here" line) reaches the peer.
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { DEMO_TITLE, type Who } from '../src/index.ts'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import { STACK_WITH_FAULTS, typeAtEnd, useBrowserStack } from './pages.ts'

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

interface RichHandle {
  text(): string
  blocks(): string[]
  provider: {
    synced: boolean
    pending: number
    shouldConnect: boolean
    allSent: boolean
    delivery: { state: string; signal: string | null; unsent: number }
    connect(): void
    disconnect(): void
  }
}
declare global {
  interface Window {
    e2eColRich?: RichHandle
  }
}

async function waitFor(page: Page, what: string, check: () => boolean): Promise<void> {
  try {
    await page.waitForFunction(check, undefined, { timeout: 20_000 })
  } catch (error) {
    throw new Error(`waited 20 s for ${what}`, { cause: error })
  }
}

async function waitForText(page: Page, needle: string): Promise<void> {
  try {
    await page.waitForFunction((n) => window.e2eColRich?.text().includes(n) === true, needle, { timeout: 20_000 })
  } catch (error) {
    const text = await page.evaluate(() => window.e2eColRich?.text())
    throw new Error(`waited 20 s for ${JSON.stringify(needle)}; page shows ${JSON.stringify(text)}`, { cause: error })
  }
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('rich text through E2eColProvider in real browsers', () => {
  const run = useBrowserStack(STACK_WITH_FAULTS, {
    async prepare(page, who, stack) {
      await page.goto(stack.link(who, 'rich'))
      await waitFor(page, `${who}'s provider to be synced`, () => window.e2eColRich?.provider.synced === true)
    },
  })
  const { pages } = run

  const type = (who: Who, text: string): Promise<void> => typeAtEnd(pages[who], '.ProseMirror', text)

  test('a link without a title (as npm start prints) names the document from the sidecar, not by its id', async () => {
    await waitForShown(pages.bob, '#doc-title', new RegExp(`^${DEMO_TITLE}$`))
    expect(await pages.bob.title()).toBe(`Bob · ${DEMO_TITLE}`)
  })

  test("paragraphs typed in Alice's page appear in Bob's, as paragraphs", async () => {
    await type('alice', 'First paragraph from Alice.')
    await pages.alice.keyboard.press('Enter')
    await pages.alice.keyboard.type('Second one.')
    await waitForText(pages.bob, 'First paragraph from Alice.Second one.')
    const blocks = await pages.bob.evaluate(() => window.e2eColRich?.blocks())
    expect(blocks).toEqual(['paragraph: First paragraph from Alice.', 'paragraph: Second one.'])
    await waitForShown(pages.alice, '#pending', /^all changes saved$/)
  })

  test("Bob sees Alice by name and colour: her cursor and the 'is here' line", async () => {
    await type('alice', ' Alice again.')
    await waitForShown(pages.bob, '#presence', /^Alice is here · typing$/)
    // Typing fades with no further message once she stops.
    await waitForShown(pages.bob, '#presence', /^Alice is here$/)
    await waitForShown(pages.bob, '.ProseMirror-yjs-cursor', /Alice/)
    const colour = await pages.bob
      .locator('.ProseMirror-yjs-cursor')
      .first()
      .evaluate((el) => getComputedStyle(el).borderLeftColor)
    expect(colour).not.toBe('rgba(0, 0, 0, 0)')
    await waitForShown(pages.alice, '#presence', /^Bob is here/)
  })

  test('edits made while the provider is disconnected are sent after connect()', async () => {
    await pages.bob.evaluate(() => window.e2eColRich?.provider.disconnect())
    await waitForShown(pages.bob, '#status', /^offline$/)
    await type('bob', ' Bob wrote this disconnected.')
    await waitFor(pages.bob, 'a pending change', () => (window.e2eColRich?.provider.pending ?? 0) > 0)
    await pages.bob.evaluate(() => window.e2eColRich?.provider.connect())
    await waitForText(pages.alice, 'Bob wrote this disconnected.')
    await waitForShown(pages.bob, '#pending', /^all changes saved$/)
    const [a, b] = await Promise.all([pages.alice, pages.bob].map((p) => p.evaluate(() => window.e2eColRich?.text())))
    expect(a).toBe(b)
    mkdirSync(ARTIFACTS, { recursive: true })
    await pages.bob.screenshot({ path: `${ARTIFACTS}demo-rich-bob.png` })
  })

  test("without network the provider's delivery says saved on this computer, not yet sent; then sent", async () => {
    run.stack.toy.faults.setNetworkLoss(true)
    await type('alice', ' Typed without network.')
    await waitFor(pages.alice, "the provider's delivery state 'sidecar', Signal unreachable", () => {
      const provider = window.e2eColRich?.provider
      return provider?.delivery.state === 'sidecar' && provider.delivery.signal === 'unreachable' && !provider.allSent
    })
    await waitForShown(
      pages.alice,
      '#pending',
      /^\d+ changes? saved on this computer, not yet sent: Signal is unreachable/,
    )
    run.stack.toy.faults.setNetworkLoss(false)
    await waitForText(pages.bob, 'Typed without network.')
    await waitFor(pages.alice, 'the provider to say all sent', () => window.e2eColRich?.provider.allSent === true)
    await waitForShown(pages.alice, '#pending', /^all changes saved$/)
  })
})
