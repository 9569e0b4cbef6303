/**
 * Presence on the CodeMirror page: two real browsers through two sidecars and the toy Signal
 * daemon. Alice sees Bob's caret and selection with his name and colour, and "Bob is here · typing";
 * once Bob's tab is gone she keeps him for the documented peer expiry, then drops him. Alice's page
 * runs on Playwright's clock so those 30 s are skipped, not waited for.
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

  test('a closed tab stays listed until the documented expiry, then goes', async () => {
    const alice = pages.alice
    /** When Alice's page last heard from Bob, on her clock (y-protocols' `meta.lastUpdated`). */
    const lastHeardOfBob = (): Promise<number | null> =>
      alice.evaluate(() => {
        const awareness = (window as unknown as { e2eColDemo?: PresenceHandle }).e2eColDemo?.awareness
        for (const [client, state] of awareness?.getStates() ?? []) {
          if (state.user?.name === 'Bob') return awareness?.meta.get(client)?.lastUpdated ?? null
        }
        return null
      })
    await pages.bob.close()
    // A presence message Bob sent just before may still be on its way through the two sidecars:
    // take the time once it has not moved for 2 s.
    let lastHeard = await lastHeardOfBob()
    const deadline = Date.now() + 20_000
    for (let still = 0; still < 4;) {
      if (Date.now() > deadline) throw new Error("waited 20 s for Alice's last news of Bob to settle")
      await alice.waitForTimeout(500)
      const again = await lastHeardOfBob()
      still = again === lastHeard ? still + 1 : 0
      lastHeard = again
    }
    if (lastHeard === null) throw new Error("Alice's page holds no presence state named Bob")

    const now = await alice.evaluate(() => Date.now())
    const almost = lastHeard + PEER_EXPIRY_MS - 3000 - now
    // y-protocols looks every 3 s; the jump must cover at least one look.
    expect(almost).toBeGreaterThan(5000)
    await alice.clock.fastForward(almost)
    await alice.waitForTimeout(500)
    await expect(alice.locator('#presence').textContent()).resolves.toBe('Bob is here')
    await expect(alice.locator('.cm-ySelectionCaret').count()).resolves.toBe(1)

    await alice.clock.fastForward(6000)
    await waitForShown(alice, '#presence', /^nobody else is here$/)
    await waitFor(alice, "Bob's caret to go", () => document.querySelectorAll('.cm-ySelectionCaret').length === 0)
  })
})
