/**
 * The path a newcomer walks after `npm start`, in real Chromium over one stack: the bare address
 * explains itself; Alice makes a document for Bob, who accepts; both type both ways; the editor
 * leads back to "Your documents" and keeps ids and addresses in its "Details" drawer; removing Bob
 * asks first; shared again, Bob accepts without pressing Forget; renamed; the rich-text view with
 * one caret per person after a reload; Alice's sidecar stopped: a reload still shows the document,
 * read-write, and says how to start it, also with the browser offline (the service worker keeps
 * the pages); the sidecar back: both converge; leaving asks first.
 * Requires Debian's Chromium (`apt-get install chromium`).
 */
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { Who } from '../src/index.ts'
import { typeAtEnd, useBrowserStack } from './pages.ts'

const WAIT = { timeout: 20_000 }
const TITLE = 'Trip plan'
const RENAMED = 'Trip plan 2027'
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i

interface DemoHandle {
  text(): string
  status(): { connection: string; pending: number; loaded: boolean }
}
interface RichHandle {
  text(): string
  provider: { synced: boolean; allSent: boolean }
}

// The callbacks run in the page: each reads the page's handle itself.
const waitForText = (page: Page, needle: string, view: 'text' | 'rich' = 'text') =>
  page.waitForFunction(
    ([n, v]) => {
      const w = window as unknown as { e2eColDemo?: DemoHandle; e2eColRich?: RichHandle }
      return (v === 'text' ? w.e2eColDemo : w.e2eColRich)?.text().includes(n) === true
    },
    [needle, view] as const,
    WAIT,
  )
const loaded = (page: Page) =>
  page.waitForFunction(
    () => (window as unknown as { e2eColDemo?: DemoHandle }).e2eColDemo?.status().loaded === true,
    undefined,
    WAIT,
  )
const connected = (page: Page) =>
  page.waitForFunction(
    () => {
      const s = (window as unknown as { e2eColDemo?: DemoHandle }).e2eColDemo?.status()
      return s?.connection === 'connected' && s.loaded && s.pending === 0
    },
    undefined,
    WAIT,
  )

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the newcomer path, from the bare address to converged after a restart', () => {
  const run = useBrowserStack(
    { vitePort: 0, sidecarPorts: [0, 0], demoDocument: false, sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } },
    { viewport: { width: 1000, height: 800 }, timeoutMs: 60_000 },
  )
  const { pages } = run
  const origin = (): string => new URL(run.stack.homeLink('alice')).origin

  async function home(who: Who): Promise<void> {
    await pages[who].goto(run.stack.homeLink(who))
    await waitForShown(pages[who], '#whoami', new RegExp(`\\${run.stack.number(who)}`))
  }
  test('the bare address says what a sidecar is and takes its address', async () => {
    const page = pages.alice
    await page.goto(`${origin()}/`)
    await waitForShown(page, '#no-sidecar', /Which sidecar is yours\?/)
    expect(await page.isHidden('#documents-page')).toBe(true)
    expect(await page.textContent('#no-sidecar')).toMatch(/npm start.*e2e-col up/s)
    await page.fill('#sidecar-form input[name=sidecar]', run.stack.sidecarUrl('alice'))
    await page.click('#sidecar-form button[type=submit]')
    await waitForShown(page, '#whoami', new RegExp(`\\${run.stack.number('alice')}`))
    expect(new URL(page.url()).searchParams.get('sidecar')).toBe(run.stack.sidecarUrl('alice'))
  })

  test('Alice makes a document for Bob (the number box suggests nobody’s number); Bob accepts', async () => {
    await home('alice')
    await home('bob')
    for (const who of ['alice', 'bob'] as const) {
      const placeholder = await pages[who].getAttribute('#new-document input[name=numbers]', 'placeholder')
      expect(placeholder).not.toMatch(/\+?\d{6,}/)
    }
    await pages.alice.fill('#new-document input[name=title]', TITLE)
    await pages.alice.fill('#new-document input[name=numbers]', run.stack.number('bob'))
    await pages.alice.click('#new-document button[type=submit]')
    await waitForShown(pages.bob, `li[data-invite="${TITLE}"] .invite-text`, /^Alice shared ‘Trip plan’ with you$/)
    await pages.bob.click(`li[data-invite="${TITLE}"] button:has-text("Accept")`)
    await waitForShown(pages.alice, `li[data-doc="${TITLE}"] .people-text`, /^with Bob$/)
  })

  test('both type both ways; the editor names the document, leads home, and keeps ids in Details', async () => {
    for (const who of ['alice', 'bob'] as const) {
      await home(who)
      await pages[who].click(`li[data-doc="${TITLE}"] a.title`)
      await connected(pages[who])
    }
    await typeAtEnd(pages.alice, '.cm-content', 'Day 1: Lisbon. ')
    await waitForText(pages.bob, 'Day 1: Lisbon. ')
    await typeAtEnd(pages.bob, '.cm-content', 'Day 2: Porto. ')
    await waitForText(pages.alice, 'Day 2: Porto. ')

    const page = pages.bob
    expect(await page.textContent('#doc-title')).toBe(TITLE)
    // No raw id or socket address outside the closed drawer.
    const outside = await page.evaluate(() => {
      const clone = document.body.cloneNode(true) as HTMLElement
      clone.querySelector('#details')?.remove()
      return clone.innerText
    })
    expect(outside).not.toMatch(UUID)
    expect(outside).not.toContain('ws://')
    expect(await page.isVisible('#doc-id')).toBe(false)
    await page.click('#details summary')
    await waitForShown(page, '#doc-id', UUID)
    expect(await page.textContent('#sidecar')).toBe(run.stack.sidecarUrl('bob'))
    // The chat console's link keeps the sidecar.
    const consoleLink = new URL((await page.getAttribute('#console-link', 'href')) ?? '', origin())
    expect(consoleLink.searchParams.get('sidecar')).toBe(run.stack.sidecarUrl('bob'))

    await page.click('#home-link')
    await waitForShown(page, `li[data-doc="${TITLE}"] .people-text`, /^with Alice$/)
    expect(new URL(page.url()).pathname).toBe('/home.html')
  }, 60_000)

  test('removing Bob asks first (Cancel keeps him); shared again, he accepts without Forget; renamed', async () => {
    const page = pages.alice
    await home('alice')
    await home('bob')
    const card = `li[data-doc="${TITLE}"]`
    await page.click(`${card} [data-person="Bob"] button:has-text("remove")`)
    await waitForShown(page, `${card} .question`, /^Stop sharing ‘Trip plan’ with Bob\?$/)
    await page.click(`${card} button:has-text("Cancel")`)
    await waitForShown(page, `${card} .people-text`, /^with Bob$/)
    expect(await page.locator(`${card} .question`).count()).toBe(0)

    await page.click(`${card} [data-person="Bob"] button:has-text("remove")`)
    await page.click(`${card} button.danger:has-text("Remove")`)
    await waitForShown(page, `${card} .people-text`, /^only you$/)
    await waitForShown(pages.bob, `${card} .people-text`, /^you are no longer in this document$/)

    // Shared again: Bob is offered it again and accepts it, no Forget first.
    await page.click(`${card} button:has-text("Share")`)
    await page.fill(`${card} input[aria-label="Share"]`, 'Bob')
    await page.click(`${card} button:has-text("Add")`)
    await waitForShown(pages.bob, `li[data-invite="${TITLE}"] .invite-text`, /^Alice shared ‘Trip plan’ with you$/)
    await pages.bob.click(`li[data-invite="${TITLE}"] button:has-text("Accept")`)
    await waitForShown(pages.bob, `${card} .people-text`, /^with Alice$/)
    await waitForShown(page, `${card} .people-text`, /^with Bob$/)

    await page.click(`${card} button:has-text("Rename")`)
    await page.fill(`${card} input[aria-label="Rename"]`, RENAMED)
    await page.click(`${card} button:has-text("Save")`)
    await waitForShown(page, `li[data-doc="${RENAMED}"] .people-text`, /^with Bob$/)
    await waitForShown(pages.bob, `li[data-doc="${RENAMED}"] .people-text`, /^with Alice$/)
  }, 90_000)

  test('the rich-text view from Details: typed both ways, and still there after a reload', async () => {
    for (const who of ['alice', 'bob'] as const) {
      await home(who)
      await pages[who].click(`li[data-doc="${RENAMED}"] a.title`)
      await loaded(pages[who])
      await pages[who].click('#details summary')
      await pages[who].click('#other-view')
      await pages[who].waitForFunction(
        () => (window as unknown as { e2eColRich?: RichHandle }).e2eColRich?.provider.synced === true,
        undefined,
        WAIT,
      )
      expect(await pages[who].textContent('#doc-title')).toBe(RENAMED)
    }
    await typeAtEnd(pages.alice, '.ProseMirror', 'Packing list.')
    await waitForText(pages.bob, 'Packing list.', 'rich')
    await pages.bob.reload()
    await waitForText(pages.bob, 'Packing list.', 'rich')
    await typeAtEnd(pages.bob, '.ProseMirror', ' Sunscreen.')
    await waitForText(pages.alice, 'Sunscreen.', 'rich')
    await typeAtEnd(pages.alice, '.ProseMirror', ' Hats.')
    await waitForShown(pages.bob, '.ProseMirror-yjs-cursor', /Alice/)
    expect(await pages.bob.locator('.ProseMirror-yjs-cursor').count()).toBe(1)
  }, 60_000)

  test('Alice’s sidecar stopped: a reload shows the document read-write and how to start it; back, both converge', async () => {
    const page = pages.alice
    for (const who of ['alice', 'bob'] as const) {
      await home(who)
      await pages[who].click(`li[data-doc="${RENAMED}"] a.title`)
      await connected(pages[who])
    }
    await run.stack.stopSidecar('alice')
    await page.reload()
    await loaded(page)
    await waitForText(page, 'Day 2: Porto. ')
    await waitForShown(page, '#advice', /^Your sidecar is not running.*`npm start`.*`e2e-col up`/)
    await typeAtEnd(page, '.cm-content', 'Written while the sidecar was stopped. ')

    // The browser offline too: the pages themselves come from the service worker's cache.
    await page.context().setOffline(true)
    try {
      await page.reload()
      await loaded(page)
      await waitForText(page, 'Written while the sidecar was stopped. ')
      await waitForShown(page, '#advice', /^This browser is offline\./)
      await typeAtEnd(page, '.cm-content', 'And offline. ')
    } finally {
      await page.context().setOffline(false)
    }

    await run.stack.startSidecar('alice')
    await connected(page)
    expect(await page.isHidden('#advice')).toBe(true)
    await waitForText(pages.bob, 'Written while the sidecar was stopped. And offline. ')
    const [a, b] = await Promise.all(
      [pages.alice, pages.bob].map((p) =>
        p.evaluate(() => (window as unknown as { e2eColDemo?: DemoHandle }).e2eColDemo?.text()),
      ),
    )
    expect(a).toBe(b)
  }, 90_000)

  test('leaving asks first; Cancel keeps the document', async () => {
    const page = pages.alice
    await home('alice')
    const card = `li[data-doc="${RENAMED}"]`
    await page.click(`${card} button:has-text("Leave")`)
    await waitForShown(page, `${card} .question`, /^Leave ‘Trip plan 2027’\?/)
    await page.click(`${card} button:has-text("Cancel")`)
    await waitForShown(page, `${card} .people-text`, /^with Bob$/)
    expect(await page.locator(`${card} .question`).count()).toBe(0)
  })
})
