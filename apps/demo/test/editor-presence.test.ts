/**
 * Presence on the CodeMirror page: two real browsers through two sidecars and the toy Signal
 * daemon. Alice sees Bob's caret and selection with his name and colour, and "Bob is here · typing";
 * once Bob's tab is closed his presence leaves with it, long before the documented peer expiry.
 */
import { PEER_EXPIRY_MS } from '@e2e-col/client'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startDemoStack, type DemoStack, type Who } from '../src/index.ts'
import { colourFor } from '../src/page/presence.ts'
import { CHROMIUM, hasChromium, launchChromium } from '@e2e-col/test-browser'

interface AwarenessLike {
  getStates(): Map<number, { user?: { name?: string } }>
  meta: Map<number, { lastUpdated: number }>
}
/** The page's debug handle, as this test reads it (other tests declare `window.e2eColDemo` their way). */
interface PresenceHandle {
  status(): { connection: string; loaded: boolean }
  awareness: AwarenessLike
}

/** `#d1495b` as getComputedStyle writes it. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16)
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`
}

async function waitFor(page: Page, what: string, check: () => boolean): Promise<void> {
  try {
    await page.waitForFunction(check, undefined, { timeout: 20_000 })
  } catch (error) {
    throw new Error(`waited 20 s for ${what}`, { cause: error })
  }
}

/** Waits until the element's visible text matches (what a person reads on the page). */
async function waitForShown(page: Page, selector: string, pattern: RegExp, timeout = 20_000): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) => new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern.source, pattern.flags] as const,
      { timeout },
    )
  } catch (error) {
    const shown = await page.locator(selector).first().textContent()
    throw new Error(`${selector} shows ${JSON.stringify(shown)} after ${timeout / 1000} s, expected ${pattern}`, {
      cause: error,
    })
  }
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('presence on the CodeMirror page in real browsers', () => {
  let stack: DemoStack
  let browser: Browser
  const pages = {} as Record<Who, Page>

  beforeAll(async () => {
    stack = await startDemoStack({ vitePort: 0, sidecarPorts: [0, 0], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } })
    browser = await launchChromium()
    for (const who of ['alice', 'bob'] as const) {
      const context = await browser.newContext({ viewport: { width: 900, height: 640 } })
      // Alice's time is Playwright's: it flows as usual until the test skips ahead.
      if (who === 'alice') await context.clock.install()
      const page = await context.newPage()
      page.on('pageerror', (error) => console.error(`[${who} page error]`, error))
      await page.goto(stack.link(who))
      await waitFor(page, `${who}'s page connected and loaded`, () => {
        const s = (window as unknown as { e2eColDemo?: PresenceHandle }).e2eColDemo?.status()
        return s?.connection === 'connected' && s.loaded
      })
      pages[who] = page
    }
  })

  afterAll(async () => {
    await browser?.close()
    await stack?.close()
  })

  test("Alice sees Bob's caret and selection under his name and colour, and 'Bob is here · typing'", async () => {
    const bob = pages.bob
    await bob.click('.cm-content')
    await bob.keyboard.press('Control+End')
    await bob.keyboard.press('Enter')
    await bob.keyboard.type('Bob writes this line.')
    await waitForShown(pages.alice, '#presence', /^Bob is here · typing$/)
    await waitForShown(pages.alice, '.cm-ySelectionInfo', /^Bob$/)
    const caret = await pages.alice
      .locator('.cm-ySelectionCaret')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor)
    expect(caret).toBe(rgb(colourFor('Bob')))

    // A selection without an edit travels as a standalone presence message: up to the 10 s
    // presence interval after the previous one, then the group's pace.
    await bob.keyboard.press('Shift+Home')
    await waitForShown(pages.alice, '.cm-ySelection', /^Bob writes this line\.$/, 30_000)
    // Typing fades with no further message once he stops; he is still here.
    await waitForShown(pages.alice, '#presence', /^Bob is here$/)
    await waitForShown(bob, '#presence', /^Alice is here$/)
  })

  test("a closed tab's presence leaves with it, long before the peer expiry", async () => {
    const alice = pages.alice
    await waitForShown(alice, '#presence', /^Bob is here/)
    const closedAt = Date.now()
    // Its removal is sent on page hide, and Bob's sidecar drops what his closed socket still showed.
    await pages.bob.close({ runBeforeUnload: true })
    await waitForShown(alice, '#presence', /^nobody else is here$/)
    expect(Date.now() - closedAt).toBeLessThan(PEER_EXPIRY_MS / 3)
    await waitFor(alice, "Bob's caret to go", () => document.querySelectorAll('.cm-ySelectionCaret').length === 0)
  })
})
