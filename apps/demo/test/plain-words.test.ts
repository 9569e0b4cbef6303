/**
 * The README's story in real Chromium, read as a person reads it: the home page, the share box, the
 * editor, its History panel, and both pages with Alice's e2e-col stopped. On every one, the text a
 * person sees never says "sidecar", a port or a document id; only the editor's Details disclosure
 * (for developers) names the address and the id.
 * Requires Debian's Chromium (`apt-get install chromium`).
 */
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import { waitForAllSent, waitForLoaded } from './editor-waits.ts'
import { openHome, typeAtEnd, useBrowserStack } from './pages.ts'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

/** What the page shows a person, the Details disclosure closed (its content is then not rendered). */
async function seenText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const details = document.getElementById('details')
    if (details instanceof HTMLDetailsElement) details.open = false
    return document.body.innerText
  })
}

describe.skipIf(!hasChromium())('the README story’s pages speak plainly', () => {
  const run = useBrowserStack(
    { vitePort: 0, sidecarPorts: [0, 0], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } },
    { viewport: { width: 1000, height: 800 }, timeoutMs: 60_000 },
  )
  const page = (): Page => run.pages.alice
  const ports = (): string[] => [
    new URL(run.stack.sidecarUrl('alice')).port,
    new URL(run.stack.sidecarUrl('bob')).port,
    new URL(run.stack.homeLink('alice')).port,
  ]

  /** The page's words: no "sidecar", no port, no document id, no address. */
  async function expectPlain(where: string): Promise<void> {
    const text = await seenText(page())
    const port = ports().find((p) => new RegExp(`\\b${p}\\b`).test(text))
    expect({ where, sidecar: /sidecar/i.exec(text)?.[0], port, id: UUID.exec(text)?.[0] }).toEqual({
      where,
      sidecar: undefined,
      port: undefined,
      id: undefined,
    })
    expect(text).not.toMatch(/ws:\/\/|127\.0\.0\.1|localhost/)
  }

  test('home, share box, editor, History, and both pages with e2e-col stopped', async () => {
    await openHome(run, 'alice')
    const card = page().locator('li[data-doc]').first()
    await card.waitFor({ state: 'visible', timeout: 20_000 })
    await expectPlain('home')

    await card.locator('button:has-text("Share")').click()
    await card.locator('input[aria-label="Share"]').waitFor({ state: 'visible' })
    await expectPlain('share box')

    await card.locator('a.title').click()
    await waitForAllSent(page())
    await typeAtEnd(page(), '.cm-content', 'Day 1: Lisbon. ')
    await waitForAllSent(page())
    await expectPlain('editor')
    // The disclosure still names what a developer needs: the id and the address.
    await page().click('#details summary')
    await waitForShown(page(), '#doc-id', UUID)
    expect(await page().textContent('#sidecar')).toBe(run.stack.sidecarUrl('alice'))

    await page().click('#history-open')
    await page().locator('.history-version').first().waitFor({ state: 'visible', timeout: 20_000 })
    await expectPlain('history')

    await run.stack.stopSidecar('alice')
    try {
      await page().reload()
      await waitForLoaded(page())
      await waitForShown(page(), '#advice', /^e2e-col is not running on this computer.*Start it again: npm start/s)
      await expectPlain('editor, e2e-col stopped')
      await page().click('#history-open')
      await waitForShown(page(), '#history-problem', /does not answer/)
      await expectPlain('history, e2e-col stopped')
      await page().goto(run.stack.homeLink('alice'))
      await waitForShown(page(), '#problem', /^e2e-col is not running on this computer/)
      await expectPlain('home, e2e-col stopped')
    } finally {
      await run.stack.startSidecar('alice')
    }
  }, 120_000)
})
