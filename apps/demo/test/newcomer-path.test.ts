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
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { Who } from '../src/index.ts'
import { editorText, waitForAllSent, waitForEditorText, waitForLoaded } from './editor-waits.ts'
import { FRESH_STACK, openHome, typeAtEnd, useBrowserStack } from './pages.ts'

const WAIT = { timeout: 20_000 }
const TITLE = 'Trip plan'
const RENAMED = 'Trip plan 2027'
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i

interface RichHandle {
  provider: { synced: boolean }
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the newcomer path, from the bare address to converged after a restart', () => {
  const run = useBrowserStack(FRESH_STACK, { viewport: { width: 1000, height: 800 }, timeoutMs: 60_000 })
  const { pages } = run
  const origin = (): string => new URL(run.stack.homeLink('alice')).origin

  const home = (who: Who): Promise<void> => openHome(run, who)
  test('the bare address says what a sidecar is and takes its address', async () => {
    const page = pages.alice
    await page.goto(`${origin()}/`)
    await waitForShown(page, '#no-sidecar', /Where is your e2e-col\?/)
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
      await waitForAllSent(pages[who])
    }
    await typeAtEnd(pages.alice, '.cm-content', 'Day 1: Lisbon. ')
    await waitForEditorText(pages.bob, 'Day 1: Lisbon. ')
    await typeAtEnd(pages.bob, '.cm-content', 'Day 2: Porto. ')
    await waitForEditorText(pages.alice, 'Day 2: Porto. ')

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
    // Cancel takes the question away at once, before the sidecar answers the redraw.
    expect(await page.locator(`${card} .question`).count()).toBe(0)
    await waitForShown(page, `${card} .people-text`, /^with Bob$/)

    await page.click(`${card} [data-person="Bob"] button:has-text("remove")`)
    await page.click(`${card} button.danger:has-text("Remove")`)
    await waitForShown(page, `${card} .people-text`, /^only you$/)
    await waitForShown(pages.bob, `${card} .people-text`, /^you are no longer in this document$/)

    // Shared again: Bob is offered it again and accepts it, no Forget first.
    await page.click(`${card} button:has-text("Share")`)
    await page.fill(`${card} input[aria-label="Share"]`, 'Bob')
    await page.click(`${card} button:has-text("Add")`)
    // Signal lists him as a member at once (Alice has his profile now): the card says he is invited.
    await waitForShown(page, `${card} .people-text`, /^with Bob \(invited\)$/)
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
      await waitForLoaded(pages[who])
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
    await waitForEditorText(pages.bob, 'Packing list.', 'rich')
    await pages.bob.reload()
    await waitForEditorText(pages.bob, 'Packing list.', 'rich')
    await typeAtEnd(pages.bob, '.ProseMirror', ' Sunscreen.')
    await waitForEditorText(pages.alice, 'Sunscreen.', 'rich')
    await typeAtEnd(pages.alice, '.ProseMirror', ' Hats.')
    await waitForShown(pages.bob, '.ProseMirror-yjs-cursor', /Alice/)
    expect(await pages.bob.locator('.ProseMirror-yjs-cursor').count()).toBe(1)
  }, 60_000)

  test('Alice’s sidecar stopped: a reload shows the document read-write and how to start it; back, both converge', async () => {
    const page = pages.alice
    for (const who of ['alice', 'bob'] as const) {
      await home(who)
      await pages[who].click(`li[data-doc="${RENAMED}"] a.title`)
      await waitForAllSent(pages[who])
    }
    await run.stack.stopSidecar('alice')
    await page.reload()
    await waitForLoaded(page)
    await waitForEditorText(page, 'Day 2: Porto. ')
    await waitForShown(page, '#advice', /^e2e-col is not running on this computer.*npm start.*e2e-col up/)
    await typeAtEnd(page, '.cm-content', 'Written while the sidecar was stopped. ')

    // The browser offline too: the advice follows at once (the browser's event, no reconnect needed),
    // and after a reload the pages themselves come from the service worker's cache.
    await page.context().setOffline(true)
    try {
      await waitForShown(page, '#advice', /^This browser is offline\./)
      await page.reload()
      await waitForLoaded(page)
      await waitForEditorText(page, 'Written while the sidecar was stopped. ')
      await waitForShown(page, '#advice', /^This browser is offline\./)
      await typeAtEnd(page, '.cm-content', 'And offline. ')
    } finally {
      await page.context().setOffline(false)
    }

    await run.stack.startSidecar('alice')
    await waitForAllSent(page)
    expect(await page.isHidden('#advice')).toBe(true)
    await waitForEditorText(pages.bob, 'Written while the sidecar was stopped. And offline. ')
    const [a, b] = await Promise.all([editorText(pages.alice), editorText(pages.bob)])
    expect(a).toBe(b)
  }, 90_000)

  test('leaving asks first; Cancel keeps the document', async () => {
    const page = pages.alice
    await home('alice')
    const card = `li[data-doc="${RENAMED}"]`
    await page.click(`${card} button:has-text("Leave")`)
    await waitForShown(page, `${card} .question`, /^Leave ‘Trip plan 2027’\?/)
    await page.click(`${card} button:has-text("Cancel")`)
    // Cancel takes the question away at once, before the sidecar answers the redraw.
    expect(await page.locator(`${card} .question`).count()).toBe(0)
    await waitForShown(page, `${card} .people-text`, /^with Bob$/)
  })
})
