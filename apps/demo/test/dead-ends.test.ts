/**
 * Where a newcomer got stuck (issue #38), in real Chromium over one stack: New document takes a
 * contact's name; a person's chip has no stray dot; an editor opened without `&name=` names the
 * person, asks for no favicon, styles "Who wrote this", keeps its header's facts on one row, and
 * follows a rename (title and address); one person in two tabs is one person; a removed person's
 * open editor says so, turns read-only and stops counting changes, and the home page opens the
 * last copy; a document left in another tab says "You left"; the home page with its sidecar
 * stopped gives the command, lists the documents it saw last, and turns New document off.
 * Requires Debian's Chromium (`apt-get install chromium`).
 */
import { describe, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { Who } from '../src/index.ts'
import { editorText, waitForAllSent, waitForEditorText, waitForLoaded, waitForReadOnly } from './editor-waits.ts'
import { FRESH_STACK, openHome, typeAtEnd, useBrowserStack } from './pages.ts'

const TITLE = 'Trip plan'

declare global {
  interface Window {
    e2eColDemo?: { text(): string; status(): { connection: string; pending: number; loaded: boolean } }
  }
}

/** The page's `gone` (why its document is no longer this person's), from its debug handle. */
const goneOf = (page: Page): Promise<string | undefined> =>
  page.evaluate(() => (window as unknown as { e2eColDemo?: { gone(): string | undefined } }).e2eColDemo?.gone())

/** Opens a document from the home page shown in `page`, and waits until it is connected and sent. */
async function openDocument(page: Page, title: string): Promise<void> {
  await page.click(`li[data-doc="${title}"] a.title`)
  await waitForAllSent(page)
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the dead ends of issue #38', () => {
  const run = useBrowserStack(FRESH_STACK, { viewport: { width: 1280, height: 800 }, timeoutMs: 60_000 })
  const { pages } = run
  const home = (who: Who): Promise<void> => openHome(run, who)
  const api = async (who: Who, method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${run.stack.sidecarUrl(who).replace(/^ws/, 'http')}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return text === '' ? undefined : JSON.parse(text)
  }

  test('New document takes a contact’s name as the Share box does; a person’s chip has no stray dot', async () => {
    await home('alice')
    await home('bob')
    expect(await pages.alice.textContent('#new-document')).toContain('Or type names or numbers')
    await pages.alice.fill('#new-document input[name=title]', TITLE)
    await pages.alice.fill('#new-document input[name=numbers]', 'Bob')
    await pages.alice.click('#new-document button[type=submit]')
    await waitForShown(pages.bob, `li[data-invite="${TITLE}"] .invite-text`, /^Alice shared ‘Trip plan’ with you$/)
    await pages.bob.click(`li[data-invite="${TITLE}"] button:has-text("Accept")`)
    await waitForShown(pages.alice, `li[data-doc="${TITLE}"] .people-text`, /^with Bob$/)
    const chip = `li[data-doc="${TITLE}"] [data-person="Bob"]`
    await waitForShown(pages.alice, chip, /^Bob · /)
    expect(await pages.alice.textContent(chip)).not.toMatch(/·\s*·/)
    expect(await pages.alice.locator(`${chip} [data-safety]`).count()).toBe(0)
  })

  test('the editor without a name names the person (others see her name); an icon of its own; its header keeps one row; a rename reaches it', async () => {
    const page = pages.alice
    const failed: string[] = []
    const onResponse = (r: { status(): number; url(): string }): void => {
      if (r.status() >= 400 && new URL(r.url()).origin === new URL(page.url()).origin) failed.push(r.url())
    }
    page.on('response', onResponse)
    await home('alice')
    await openDocument(page, TITLE)
    const url = new URL(page.url())
    url.searchParams.delete('name')
    await page.goto(url.toString())
    await waitForShown(page, '#whoami', new RegExp(`^\\${run.stack.number('alice')}$`))
    await waitForAllSent(page)
    await typeAtEnd(page, '.cm-content', 'Day 1: Lisbon. ')
    await waitForAllSent(page)

    // "Who wrote this" looks like the page's other buttons.
    const radius = await page.$eval('#authors-toggle', (b) => getComputedStyle(b).borderRadius)
    expect(radius).toBe('6px')
    // A long "Changes" sentence wraps in its own column: the facts stay on one row (in a narrower window too).
    await page.setViewportSize({ width: 1000, height: 800 })
    await page.$eval('#pending', (el) => {
      el.textContent = '3 changes saved on this computer, not yet sent: Signal is unreachable since 10:42'
    })
    const tops = await page.$$eval(
      '.facts > div',
      (divs) => new Set(divs.map((d) => d.getBoundingClientRect().top)).size,
    )
    await page.setViewportSize({ width: 1280, height: 800 })
    expect(tops).toBe(1)
    // The icon is in the page itself: the page server, which has none, is never asked for /favicon.ico.
    expect(await page.getAttribute('link[rel=icon]', 'href')).toMatch(/^data:image\/svg\+xml,/)

    // Others see her as their sidecar names her (it stamps presence with the sender's name), not "me".
    await home('bob')
    await openDocument(pages.bob, TITLE)
    await waitForShown(pages.bob, '#presence', /^Alice is here/)

    // Renamed by Bob from his home page: Alice's open editor follows, address included.
    await home('bob')
    await pages.bob.click(`li[data-doc="${TITLE}"] button:has-text("Rename")`)
    await pages.bob.fill(`li[data-doc="${TITLE}"] input[aria-label="Rename"]`, 'Trip 2027')
    await pages.bob.click(`li[data-doc="${TITLE}"] button:has-text("Save")`)
    await waitForShown(page, '#doc-title', /^Trip 2027$/)
    expect(new URL(page.url()).searchParams.get('title')).toBe('Trip 2027')
    await api('alice', 'PATCH', `/v1/docs/${await docIdOf('alice', 'Trip 2027')}`, { title: TITLE })
    await waitForShown(page, '#doc-title', /^Trip plan$/)
    page.off('response', onResponse)
    expect(failed).toEqual([])
  })

  async function docIdOf(who: Who, title: string): Promise<string> {
    const { documents } = (await api(who, 'GET', '/v1/docs')) as { documents: { docId: string; title: string }[] }
    const doc = documents.find((d) => d.title === title)
    if (doc === undefined) throw new Error(`${who} has no document titled ${title}`)
    return doc.docId
  }

  test('one person in two tabs is one person; your own second tab is not someone else', async () => {
    const second = await pages.bob.context().newPage()
    try {
      for (const page of [pages.alice, pages.bob, second]) {
        await page.goto(run.stack.homeLink(page === pages.alice ? 'alice' : 'bob'))
        await openDocument(page, TITLE)
      }
      await waitForShown(pages.alice, '#presence', /^Bob is here/)
      await waitForShown(pages.bob, '#presence', /^Alice is here/)
      // Given the time to arrive, the second tab never adds a second Bob, nor Bob to his own tab.
      await waitForShown(second, '#presence', /^Alice is here/)
      expect(await pages.alice.textContent('#presence')).not.toMatch(/Bob and Bob|Bob, Bob/)
      expect(await pages.bob.textContent('#presence')).not.toContain('Bob')
    } finally {
      await second.close()
    }
  })

  test('removed: Bob’s open editor says so, turns read-only and stops counting; his home page opens the last copy', async () => {
    await waitForEditorText(pages.bob, 'Day 1: Lisbon. ')
    await home('alice')
    await pages.alice.click(`li[data-doc="${TITLE}"] [data-person="Bob"] button`)
    await pages.alice.click(`li[data-doc="${TITLE}"] button.danger:has-text("Remove")`)
    await waitForShown(pages.bob, '#advice', /^Alice stopped sharing ‘Trip plan’ with you\./)
    expect(await goneOf(pages.bob)).toBe('removed')
    await waitForReadOnly(pages.bob, true)
    expect(await pages.bob.textContent('#status')).toBe('not shared')
    expect(await pages.bob.textContent('#pending')).toBe('')
    expect(await pages.bob.isHidden('#read-only')).toBe(true)
    expect(await pages.bob.textContent('#advice')).not.toMatch(/not running|npm start/)

    await home('bob')
    const card = `li[data-doc="${TITLE}"]`
    await waitForShown(pages.bob, `${card} .people-text`, /^you are no longer in this document$/)
    expect(await pages.bob.textContent(`${card} .removed-by`)).toBe('Alice stopped sharing it with you')
    await pages.bob.click(`${card} button:has-text("Forget")`)
    expect(await pages.bob.textContent(`${card} .question`)).toMatch(/its text stays stored on this computer/)
    await pages.bob.click(`${card} button:has-text("Cancel")`)
    await pages.bob.click(`${card} a.title`)
    await waitForLoaded(pages.bob)
    await waitForShown(pages.bob, '#advice', /^Alice stopped sharing ‘Trip plan’ with you\./)
    expect(await editorText(pages.bob)).toContain('Day 1: Lisbon. ')
    // The rich-text view of it says the same, read-only.
    await pages.bob.goto(
      new URL((await pages.bob.getAttribute('#other-view', 'href')) ?? '', pages.bob.url()).toString(),
    )
    await waitForShown(pages.bob, '#advice', /^Alice stopped sharing ‘Trip plan’ with you\./)
    await pages.bob.waitForFunction(
      () => (window as unknown as { e2eColRich?: { readOnly(): boolean } }).e2eColRich?.readOnly() === true,
    )
  })

  test('left in another tab: the open editor says "You left", read-only', async () => {
    const made = (await api('alice', 'POST', '/v1/docs', { title: 'Packing list', members: [] })) as { docId: string }
    await home('alice')
    await openDocument(pages.alice, 'Packing list')
    const other = await pages.alice.context().newPage()
    try {
      await other.goto(run.stack.homeLink('alice'))
      await other.click('li[data-doc="Packing list"] button:has-text("Leave")')
      await other.click('li[data-doc="Packing list"] button.danger:has-text("Leave")')
      await waitForShown(pages.alice, '#advice', /^You left ‘Packing list’\./)
      expect(await goneOf(pages.alice)).toBe('left')
      await waitForReadOnly(pages.alice, true)
      expect(made.docId).toMatch(/^[0-9a-f-]{36}$/)
    } finally {
      await other.close()
    }
  })

  test('the home page with its sidecar stopped: the command, the documents it saw last, no New document', async () => {
    await home('alice')
    await waitForShown(pages.alice, `li[data-doc="${TITLE}"] .people-text`, /^only you$/)
    await run.stack.stopSidecar('alice')
    try {
      await pages.alice.reload()
      await waitForShown(pages.alice, '#problem', /^e2e-col is not running on this computer/)
      expect(await pages.alice.$$eval('#problem code', (c) => c.map((e) => e.textContent))).toEqual([
        'npm start',
        'a',
        'b',
        'e2e-col up',
      ])
      expect(await pages.alice.textContent('#problem')).not.toContain('`')
      await waitForShown(pages.alice, `li[data-doc="${TITLE}"][data-state="kept"] a.title`, /^Trip plan$/)
      expect(await pages.alice.isDisabled('#new-document input[name=title]')).toBe(true)
      expect(await pages.alice.isDisabled('#new-document button[type=submit]')).toBe(true)
      expect(await pages.alice.textContent('#whoami')).toContain(run.stack.number('alice'))
      // The kept card opens the copy this browser kept, and the editor says how to start the sidecar, as code.
      await pages.alice.click(`li[data-doc="${TITLE}"] a.title`)
      await waitForLoaded(pages.alice)
      expect(await editorText(pages.alice)).toContain('Day 1: Lisbon. ')
      await waitForShown(pages.alice, '#advice', /^e2e-col is not running on this computer/)
      expect(await pages.alice.$$eval('#advice code', (c) => c.map((e) => e.textContent))).toContain('npm start')
      expect(await pages.alice.textContent('#advice')).not.toContain('`')
    } finally {
      await run.stack.startSidecar('alice')
    }
    await home('alice')
    await waitForShown(pages.alice, `li[data-doc="${TITLE}"][data-state="active"] .people-text`, /^only you$/)
    expect(await pages.alice.isDisabled('#new-document input[name=title]')).toBe(false)
    expect(await pages.alice.isHidden('#problem')).toBe(true)
  })

  test('with the page server away (the browser offline), a page from the service worker logs no error of its own', async () => {
    const page = pages.alice
    await home('alice')
    await openDocument(page, TITLE)
    const errors: string[] = []
    const onConsole = (m: { type(): string; text(): string }): void => {
      if (m.type() === 'error') errors.push(m.text())
    }
    page.on('console', onConsole)
    await page.context().setOffline(true)
    try {
      await page.reload()
      await waitForLoaded(page)
      await waitForShown(page, '#advice', /^This browser is offline\./)
    } finally {
      await page.context().setOffline(false)
      page.off('console', onConsole)
    }
    expect(errors.filter((e) => /registerDevSW|unable to send|import\.meta\.hot/.test(e))).toEqual([])
  })
})
