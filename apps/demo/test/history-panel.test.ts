/**
 * The History panel in real browsers on the toy with two sidecars: Alice writes, Bob's page deletes
 * everything, Alice opens History, previews the version before (its text marked as coming back),
 * restores it, and both pages show the text again; then the same on the rich-text page. Undo is
 * previewed and confirmed: after Alice restores her text over Bob's wipe, undoing Bob leaves exactly
 * her text; undoing Bob's newest entry after his wipe brings back what the wipe took.
 * Requires Debian's Chromium (`apt-get install chromium`; `.ci/run` does it).
 */
import type { Locator, Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { DemoStack } from '../src/index.ts'
import { editorText, waitForAllSent, waitForEditorText } from './editor-waits.ts'
import { SIDECAR_ENV_WITH_FAULTS, typeAtEnd, useBrowserStack } from './pages.ts'

const WAIT = { timeout: 20_000 }

// A version a few hundred ms after a spell of edits goes quiet, so the test does not wait 3 s each.
const STACK = {
  vitePort: 0,
  sidecarPorts: [0, 0] as [number, number],
  faults: true,
  sidecarEnv: { ...SIDECAR_ENV_WITH_FAULTS, E2E_COL_HISTORY_QUIET_MS: '300' },
}

/** Opens the panel (or refreshes it) until a version whose line matches `line` is listed; clicks it. */
async function previewVersion(page: Page, line: RegExp): Promise<void> {
  if (await page.locator('#history').isHidden()) await page.click('#history-open')
  const item = page.locator('.history-version', { hasText: line }).first()
  for (let tries = 0; !(await item.isVisible()); tries++) {
    if (tries > 40)
      throw new Error(
        `no version matching ${line} was listed: ${JSON.stringify(await page.locator('.history-version').allTextContents())}`,
      )
    await page.click('#history-refresh')
    await page.waitForTimeout(250)
  }
  await item.click()
  await page.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
}

/**
 * Previews the version just before the newest spell of versions matching `line` (e.g. Bob's
 * deletion, which his editor may have recorded as more than one version).
 */
async function previewBefore(page: Page, line: RegExp): Promise<void> {
  await previewVersion(page, line)
  const texts = await page.locator('.history-version').allTextContents()
  const first = texts.findIndex((t) => line.test(t))
  const before = texts.findIndex((t, i) => i > first && !line.test(t))
  if (before < 0) throw new Error(`no version before ${line}: ${JSON.stringify(texts)}`)
  await page.locator('.history-version').nth(before).click()
  await page.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
}

/** Bob selects everything in his editor and presses Delete. */
async function deleteAll(page: Page, editor: string): Promise<void> {
  await page.click(editor)
  await page.keyboard.press('Control+A')
  await page.keyboard.press('Delete')
}

/** Alice's sidecar's versions, newest first, through its local API (as the panel reads them). */
async function versionChars(stack: DemoStack, docId = stack.docId): Promise<number[]> {
  const base = stack.sidecarUrl('alice').replace(/^ws/, 'http')
  const res = await fetch(`${base}/v1/docs/${docId}/versions`)
  return ((await res.json()) as { versions: { chars?: number }[] }).versions.map((v) => v.chars ?? -1)
}

/** Until Alice's sidecar has kept a version whose characters are `chars` (the newest one). */
async function untilNewestVersionHas(stack: DemoStack, chars: number, docId = stack.docId): Promise<void> {
  for (let tries = 0; (await versionChars(stack, docId))[0] !== chars; tries++) {
    if (tries > 80)
      throw new Error(`no newest version of ${chars} characters: ${JSON.stringify(await versionChars(stack, docId))}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/**
 * Previews the newest version of `chars` characters (as Alice's sidecar lists them, in the panel's
 * order): on the rich-text page both editors may add an empty paragraph after a deletion, each a
 * version of its own, so "the one before Bob's" is found by its content.
 */
async function previewNewestWith(page: Page, stack: DemoStack, chars: number): Promise<void> {
  if (await page.locator('#history').isHidden()) await page.click('#history-open')
  for (let tries = 0; ; tries++) {
    const listed = await versionChars(stack)
    await page.click('#history-refresh')
    await page.waitForFunction((n) => document.querySelectorAll('.history-version').length === n, listed.length, WAIT)
    // Nothing new since the listing: the panel shows the same versions in the same order.
    if ((await versionChars(stack)).length === listed.length) {
      const index = listed.indexOf(chars)
      if (index < 0) throw new Error(`no version of ${chars} characters: ${JSON.stringify(listed)}`)
      await page.locator('.history-version').nth(index).click()
      return page.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
    }
    if (tries > 10) throw new Error('the versions kept changing')
  }
}

/** The text a preview shows, without what it marks as removed (struck through). */
const previewText = (page: Page) =>
  page.evaluate(() => {
    const box = document.querySelector('#history-preview .cm-content')?.cloneNode(true) as HTMLElement | undefined
    for (const gone of box?.querySelectorAll('.history-gone') ?? []) gone.remove()
    return box?.textContent ?? undefined
  })

/** Clicks an undo offer, waits for its preview to show `result`, and confirms it. */
async function undoConfirmed(page: Page, offer: Locator, result: string): Promise<void> {
  const label = (await offer.textContent()) ?? ''
  await offer.click()
  await waitForShown(page, '#history-confirm', new RegExp(`^Confirm: ${label.replace(/[.()]/g, '\\$&')}$`))
  try {
    await page.waitForFunction(
      (want) => {
        const box = document.querySelector('#history-preview .cm-content')?.cloneNode(true) as HTMLElement | undefined
        for (const gone of box?.querySelectorAll('.history-gone') ?? []) gone.remove()
        return box?.textContent === want
      },
      result,
      WAIT,
    )
  } catch (error) {
    throw new Error(`the preview of "${label}" showed ${JSON.stringify(await previewText(page))}`, { cause: error })
  }
  // Nothing is changed until it is confirmed.
  expect(await editorText(page)).not.toBe(result)
  await page.click('#history-confirm')
}

/** A new document of Alice's shared with Bob, both pages on it. */
async function sharedDoc(stack: DemoStack, pages: Record<'alice' | 'bob', Page>, title: string): Promise<string> {
  const api = (who: 'alice' | 'bob', path: string, body?: unknown) =>
    fetch(`${stack.sidecarUrl(who).replace(/^ws/, 'http')}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const made = await api('alice', '/v1/docs', { title, members: [stack.number('bob')] })
  expect(made.status).toBe(201)
  const { docId } = (await made.json()) as { docId: string }
  for (let tries = 0; ; tries++) {
    const { invites } = (await (await api('bob', '/v1/invites')).json()) as { invites: { id: string }[] }
    if (invites.some((i) => i.id === docId)) break
    if (tries > 80) throw new Error('Bob was never invited')
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  expect((await api('bob', `/v1/invites/${docId}/accept`, {})).status).toBe(200)
  for (const who of ['alice', 'bob'] as const) {
    await pages[who].goto(stack.link(who).replace(/doc=[^&]+/, `doc=${docId}`))
    await waitForAllSent(pages[who])
  }
  return docId
}

const richText = (page: Page) =>
  page.evaluate(() => (window as unknown as { e2eColRich?: { text(): string } }).e2eColRich?.text())

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the History panel in real browsers', () => {
  const run = useBrowserStack(STACK, {
    async prepare(page, who, stack) {
      await page.goto(stack.link(who))
      await waitForAllSent(page)
    },
  })
  const { pages } = run

  test("Bob's page deletes everything; Alice previews the version before, restores it; both pages show the text", async () => {
    const text = 'Trip plan: Lisbon, then Porto.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await waitForAllSent(pages.alice)
    // Alice's version is kept once her typing has gone quiet.
    await previewVersion(pages.alice, /^You · /)

    await deleteAll(pages.bob, '.cm-content')
    await pages.alice.waitForFunction(
      () => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === '',
      undefined,
      WAIT,
    )
    // Bob's deletion is a version of its own, named for him in words (no number, no id), with the
    // offer to undo his changes alone.
    await pages.alice.click('#history-close')
    await previewVersion(pages.alice, /^Bob · /)
    expect(await pages.alice.locator('.history-undo').allTextContents()).toEqual([
      expect.stringMatching(/^Undo Bob’s changes since \d/),
    ])
    await pages.alice.click('#history-close')

    // The version before: Alice's. Everything in it is marked as coming back.
    await previewBefore(pages.alice, /^Bob · /)
    await waitForShown(pages.alice, '#history-preview .cm-content', new RegExp(text.replace(/[.]/g, '\\.')))
    expect(await pages.alice.locator('#history-preview .history-back').allTextContents()).toEqual([text])
    expect(await pages.alice.locator('#history-preview .cm-content').getAttribute('contenteditable')).toBe('false')
    // Your own changes are not offered for undoing one person at a time.
    expect(await pages.alice.locator('.history-undo').count()).toBe(0)

    await pages.alice.click('#history-restore')
    await waitForShown(pages.alice, '#history-done', /^Restored the version of /)
    await waitForEditorText(pages.alice, text)
    await waitForEditorText(pages.bob, text)
    expect(await editorText(pages.bob)).toBe(text)
    expect(await pages.alice.locator('#history-problem').isHidden()).toBe(true)

    // "Undo Bob's changes since …" on his next version takes out his words and keeps the rest.
    await typeAtEnd(pages.bob, '.cm-content', ' SPAM')
    await waitForEditorText(pages.alice, `${text} SPAM`)
    await untilNewestVersionHas(run.stack, text.length + ' SPAM'.length)
    await pages.alice.click('#history-refresh')
    await pages.alice.locator('.history-version').first().click()
    await pages.alice.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
    await undoConfirmed(pages.alice, pages.alice.locator('.history-undo').first(), text)
    await waitForShown(pages.alice, '#history-done', /^Undo Bob’s changes since .*: done\.$/)
    for (const page of [pages.alice, pages.bob])
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === want,
        text,
        WAIT,
      )
    // The undo's own version names whose changes it undid.
    await pages.alice.click('#history-refresh')
    await waitForShown(pages.alice, '.history-version', /undid Bob’s changes$/)
  })

  test('on the rich-text page: Bob deletes everything, Alice previews the version before (changed blocks marked) and restores it', async () => {
    for (const who of ['alice', 'bob'] as const) {
      await pages[who].goto(run.stack.link(who, 'rich'))
      await pages[who].waitForFunction(
        () => (window as unknown as { e2eColRich?: { provider: { synced: boolean } } }).e2eColRich?.provider.synced,
        undefined,
        WAIT,
      )
    }
    const words = 'Day one in Lisbon'
    const [plain = 0] = await versionChars(run.stack)
    await typeAtEnd(pages.alice, '.ProseMirror', words)
    await waitForEditorText(pages.bob, words, 'rich')
    // Alice's words are a version of their own (the plain text's characters count too).
    await untilNewestVersionHas(run.stack, plain + words.length)

    await deleteAll(pages.bob, '.ProseMirror')
    await pages.alice.waitForFunction(
      () => (window as unknown as { e2eColRich?: { text(): string } }).e2eColRich?.text() === '',
      undefined,
      WAIT,
    )
    await untilNewestVersionHas(run.stack, plain)
    await previewNewestWith(pages.alice, run.stack, plain + words.length)
    await waitForShown(pages.alice, '#history-preview .ProseMirror', new RegExp(words))
    expect(await pages.alice.locator('#history-preview .history-changed').allTextContents()).toEqual([words])
    expect(await pages.alice.locator('#history-preview .ProseMirror').getAttribute('contenteditable')).toBe('false')

    await pages.alice.click('#history-restore')
    await waitForShown(pages.alice, '#history-done', /^Restored the version of /)
    await waitForEditorText(pages.alice, words, 'rich')
    await waitForEditorText(pages.bob, words, 'rich')
    expect(await richText(pages.bob)).toBe(words)
  })

  test('Bob, given a document after Alice wrote in it, is told his history starts when he joined; Alice is not', async () => {
    const { stack } = run
    const api = (who: 'alice' | 'bob', path: string, body?: unknown) =>
      fetch(`${stack.sidecarUrl(who).replace(/^ws/, 'http')}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const made = await api('alice', '/v1/docs', { title: 'Written before Bob', members: [] })
    expect(made.status).toBe(201)
    const { docId } = (await made.json()) as { docId: string }
    const linkTo = (who: 'alice' | 'bob') => stack.link(who).replace(/doc=[^&]+/, `doc=${docId}`)
    const text = 'Alice alone, first.'
    await pages.alice.goto(linkTo('alice'))
    await waitForAllSent(pages.alice)
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForAllSent(pages.alice)
    expect((await api('alice', `/v1/docs/${docId}/members`, { add: [stack.number('bob')] })).status).toBe(200)
    for (let tries = 0; ; tries++) {
      const { invites } = (await (await api('bob', '/v1/invites')).json()) as { invites: { id: string }[] }
      if (invites.some((i) => i.id === docId)) break
      if (tries > 80) throw new Error('Bob was never invited')
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect((await api('bob', `/v1/invites/${docId}/accept`, {})).status).toBe(200)
    await pages.bob.goto(linkTo('bob'))
    await waitForEditorText(pages.bob, text)

    // Bob's first content came in the group's answer, holding what Alice wrote before he joined.
    await previewVersion(pages.bob, /./)
    await waitForShown(
      pages.bob,
      '#history-note',
      /^You have history from when you joined on .+; what happened before is kept by the people who were there\.$/,
    )
    await previewVersion(pages.alice, /^You · /)
    expect(await pages.alice.locator('#history-note').isVisible()).toBe(false)
  })
  test('Bob, a viewer, sees the versions but no Restore or Undo, and reads why', async () => {
    const { stack } = run
    const api = (who: 'alice' | 'bob', path: string, body?: unknown) =>
      fetch(`${stack.sidecarUrl(who).replace(/^ws/, 'http')}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const made = await api('alice', '/v1/docs', {
      title: 'Bob reads',
      members: [{ number: stack.number('bob'), role: 'viewer' }],
    })
    expect(made.status).toBe(201)
    const { docId } = (await made.json()) as { docId: string }
    for (let tries = 0; ; tries++) {
      const { invites } = (await (await api('bob', '/v1/invites')).json()) as { invites: { id: string }[] }
      if (invites.some((i) => i.id === docId)) break
      if (tries > 80) throw new Error('Bob was never invited')
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect((await api('bob', `/v1/invites/${docId}/accept`, {})).status).toBe(200)
    const linkTo = (who: 'alice' | 'bob') => stack.link(who).replace(/doc=[^&]+/, `doc=${docId}`)
    await pages.alice.goto(linkTo('alice'))
    await waitForAllSent(pages.alice)
    const text = 'Only Alice writes here.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await pages.bob.goto(linkTo('bob'))
    await waitForEditorText(pages.bob, text)
    await pages.bob.waitForFunction(() => document.body.dataset['role'] === 'viewer', undefined, WAIT)

    await previewVersion(pages.bob, /^Alice · /)
    await waitForShown(
      pages.bob,
      '#history-viewer',
      /^You can view this document, so you can look at its versions; only its editors restore them or undo changes\.$/,
    )
    expect(await pages.bob.locator('#history-restore').isVisible()).toBe(false)
    // The offers to undo Alice's changes are made, and none is shown.
    expect(await pages.bob.locator('.history-undo').count()).toBeGreaterThan(0)
    expect(
      await pages.bob.locator('.history-undo').evaluateAll((els) => els.filter((e) => e.checkVisibility()).length),
    ).toBe(0)
    // Alice, an editor of the same document, is offered both and reads no such line.
    await previewVersion(pages.alice, /^You · /)
    expect(await pages.alice.locator('#history-restore').isVisible()).toBe(true)
    expect(await pages.alice.locator('#history-viewer').isVisible()).toBe(false)
  })

  test('Bob types, then wipes: his entries are told apart by size, and undoing the newest brings his text back exactly', async () => {
    const { stack } = run
    const api = (who: 'alice' | 'bob', path: string, body?: unknown) =>
      fetch(`${stack.sidecarUrl(who).replace(/^ws/, 'http')}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const made = await api('alice', '/v1/docs', { title: 'Wiped by Bob', members: [stack.number('bob')] })
    expect(made.status).toBe(201)
    const { docId } = (await made.json()) as { docId: string }
    for (let tries = 0; ; tries++) {
      const { invites } = (await (await api('bob', '/v1/invites')).json()) as { invites: { id: string }[] }
      if (invites.some((i) => i.id === docId)) break
      if (tries > 80) throw new Error('Bob was never invited')
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect((await api('bob', `/v1/invites/${docId}/accept`, {})).status).toBe(200)
    const linkTo = (who: 'alice' | 'bob') => stack.link(who).replace(/doc=[^&]+/, `doc=${docId}`)
    await pages.alice.goto(linkTo('alice'))
    await pages.bob.goto(linkTo('bob'))
    await waitForAllSent(pages.bob)
    const text = 'Packing list: boots, map, water.'
    await typeAtEnd(pages.bob, '.cm-content', text)
    await waitForEditorText(pages.alice, text)
    await waitForAllSent(pages.bob)
    // Bob's typing is kept (as one version or more) before he wipes it.
    for (let tries = 0; ; tries++) {
      const res = await api('alice', `/v1/docs/${docId}/versions`)
      const { versions } = (await res.json()) as { versions: { chars?: number }[] }
      if (versions[0]?.chars === text.length) break
      if (tries > 80) throw new Error(`no version of Bob's text: ${JSON.stringify(versions)}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }

    await deleteAll(pages.bob, '.cm-content')
    await waitForEditorText(pages.alice, '')
    // The wipe is an entry of its own that says what it took.
    await previewVersion(pages.alice, new RegExp(`^Bob · .* · \u2212${text.length} characters$`))
    // No two of Bob's entries read alike: the wipe says what it took, the typing what it added.
    const bobs = (await pages.alice.locator('.history-version').allTextContents()).filter((l) => l.startsWith('Bob · '))
    expect(bobs.length).toBeGreaterThanOrEqual(2)
    expect(new Set(bobs).size).toBe(bobs.length)
    expect(bobs.slice(1).every((l) => / · \+\d+ characters?( · |$)/.test(l))).toBe(true)
    // His entries before it are his typing: the first offer undoes them all (nothing left), the
    // second this entry alone, which the preview shows bringing his text back.
    const offers = await pages.alice.locator('.history-undo').allTextContents()
    expect(offers).toEqual([
      expect.stringMatching(/^Undo Bob’s changes since .+ \(\d+ entries\)$/),
      expect.stringMatching(/^Undo Bob’s changes since .+ \(this entry only\)$/),
    ])
    await undoConfirmed(pages.alice, pages.alice.locator('.history-undo', { hasText: 'this entry only' }), text)
    await waitForShown(pages.alice, '#history-done', /^Undo Bob’s changes since .*: done\.$/)
    await waitForEditorText(pages.alice, text)
    await waitForEditorText(pages.bob, text)
    expect(await editorText(pages.alice)).toBe(text)
    expect(await editorText(pages.bob)).toBe(text)
  })

  test("Alice restores her text over Bob's wipe; undoing Bob (previewed first) leaves exactly her text, nothing doubled or garbled", async () => {
    const { stack } = run
    const docId = await sharedDoc(stack, pages, 'Restored by Alice')
    const text = 'Alice: book the hotel in Lisbon. Alice: rent a car in Porto.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await untilNewestVersionHas(stack, text.length, docId)

    await deleteAll(pages.bob, '.cm-content')
    await typeAtEnd(pages.bob, '.cm-content', 'Bob was here.')
    await pages.alice.waitForFunction(
      () => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === 'Bob was here.',
      undefined,
      WAIT,
    )
    await untilNewestVersionHas(stack, 'Bob was here.'.length, docId)
    await previewVersion(pages.alice, /^You · /)
    await pages.alice.click('#history-restore')
    await waitForShown(pages.alice, '#history-done', /^Restored the version of /)
    await waitForEditorText(pages.bob, text)
    expect(await editorText(pages.bob)).toBe(text)
    // Bob writes again after the restore.
    await typeAtEnd(pages.bob, '.cm-content', ' Bob again.')
    await waitForEditorText(pages.alice, `${text} Bob again.`)
    await untilNewestVersionHas(stack, text.length + ' Bob again.'.length, docId)

    // The restore's entry names the version it restored; Bob's entry before it offers his changes
    // since before his wipe, which takes everything he wrote, before the restore and after it.
    await pages.alice.click('#history-refresh')
    await waitForShown(pages.alice, '.history-version', /^Bob · /)
    const lines = await pages.alice.locator('.history-version').allTextContents()
    const restored = lines.findIndex((l) => /^You · .* · restored the version of \d/.test(l))
    const bobBefore = lines.findIndex((l, i) => i > restored && l.startsWith('Bob · '))
    expect([restored >= 0, bobBefore > restored]).toEqual([true, true])
    await pages.alice.locator('.history-version').nth(bobBefore).click()
    await pages.alice.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
    await undoConfirmed(pages.alice, pages.alice.locator('.history-undo').first(), text)
    await waitForShown(pages.alice, '#history-done', /^Undo Bob’s changes since .*: done\.$/)
    for (const page of [pages.alice, pages.bob])
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === want,
        text,
        WAIT,
      )
    expect(await editorText(pages.alice)).toBe(text)
    expect(await editorText(pages.bob)).toBe(text)
  })

  test("on the rich-text page: Alice restores her words over Bob's wipe; undoing Bob leaves exactly her words, shown as restored by her", async () => {
    const { stack } = run
    const docId = await sharedDoc(stack, pages, 'Restored rich text')
    const rich = (who: 'alice' | 'bob') => stack.link(who, 'rich').replace(/doc=[^&]+/, `doc=${docId}`)
    for (const who of ['alice', 'bob'] as const) {
      await pages[who].goto(rich(who))
      await pages[who].waitForFunction(
        () => (window as unknown as { e2eColRich?: { provider: { synced: boolean } } }).e2eColRich?.provider.synced,
        undefined,
        WAIT,
      )
    }
    const words = 'Alice: book the hotel in Lisbon.'
    await typeAtEnd(pages.alice, '.ProseMirror', words)
    await waitForEditorText(pages.bob, words, 'rich')
    await untilNewestVersionHas(stack, words.length, docId)

    await deleteAll(pages.bob, '.ProseMirror')
    await typeAtEnd(pages.bob, '.ProseMirror', 'Bob was here.')
    await waitForEditorText(pages.alice, 'Bob was here.', 'rich')
    await untilNewestVersionHas(stack, 'Bob was here.'.length, docId)
    await previewVersion(pages.alice, /^You · /)
    await pages.alice.click('#history-restore')
    await waitForShown(pages.alice, '#history-done', /^Restored the version of /)
    await waitForEditorText(pages.bob, words, 'rich')
    await typeAtEnd(pages.bob, '.ProseMirror', ' Bob again.')
    await waitForEditorText(pages.alice, `${words} Bob again.`, 'rich')
    await untilNewestVersionHas(stack, words.length + ' Bob again.'.length, docId)

    // Bob's entry before the restore: undoing his changes since then takes all he wrote, doubles nothing.
    await pages.alice.click('#history-refresh')
    await waitForShown(pages.alice, '.history-version', /^Bob · /)
    const lines = await pages.alice.locator('.history-version').allTextContents()
    const restored = lines.findIndex((l) => /^You · .* · restored the version of \d/.test(l))
    const bobBefore = lines.findIndex((l, i) => i > restored && l.startsWith('Bob · '))
    expect([restored >= 0, bobBefore > restored]).toEqual([true, true])
    await pages.alice.locator('.history-version').nth(bobBefore).click()
    await pages.alice.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
    await pages.alice.locator('.history-undo').first().click()
    await waitForShown(pages.alice, '#history-confirm', /^Confirm: Undo Bob’s changes since /)
    await pages.alice.click('#history-confirm')
    await waitForShown(pages.alice, '#history-done', /^Undo Bob’s changes since .*: done\.$/)
    for (const page of [pages.alice, pages.bob])
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColRich?: { text(): string } }).e2eColRich?.text() === want,
        words,
        WAIT,
      )
    expect([await richText(pages.alice), await richText(pages.bob)]).toEqual([words, words])

    // "Who wrote this": every letter now is the restore's, named as restored, with the version's time.
    for (const [who, name] of [
      ['alice', 'You'],
      ['bob', 'Alice'],
    ] as const) {
      await pages[who].click('#authors-toggle')
      await waitForShown(
        pages[who],
        '#authors-legend .author',
        new RegExp(`^restored by (${name}|\\+\\d+) from the version of \\d\\d:\\d\\d:\\d\\d$`),
      )
      await pages[who].click('#authors-toggle')
    }
  })

  test("Bob wipes Alice's text and types his line; undoing his newest entry (previewed first) brings her text back exactly", async () => {
    const { stack } = run
    const docId = await sharedDoc(stack, pages, 'Wiped, then written over')
    const text = 'Alice: the ferry leaves at nine.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await untilNewestVersionHas(stack, text.length, docId)

    await deleteAll(pages.bob, '.cm-content')
    await typeAtEnd(pages.bob, '.cm-content', 'Bob was here.')
    await waitForEditorText(pages.alice, 'Bob was here.')
    await untilNewestVersionHas(stack, 'Bob was here.'.length, docId)

    // The newest entry is his typing; its first offer reaches back over his wipe to Alice's text.
    await pages.alice.click('#history-open')
    await pages.alice.locator('.history-version').first().click()
    await pages.alice.locator('#history-chosen').waitFor({ state: 'visible', ...WAIT })
    const first = pages.alice.locator('.history-undo').first()
    expect(await first.textContent()).toMatch(/^Undo Bob’s changes since .+ \(\d+ entries\)$/)
    await undoConfirmed(pages.alice, first, text)
    await waitForShown(pages.alice, '#history-done', /^Undo Bob’s changes since .*: done\.$/)
    await waitForEditorText(pages.bob, text)
    for (const page of [pages.alice, pages.bob])
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === want,
        text,
        WAIT,
      )
    expect(await editorText(pages.alice)).toBe(text)
    expect(await editorText(pages.bob)).toBe(text)
  })

  test('History opened on a document with no version yet lists the first one by itself once it is kept', async () => {
    const { stack } = run
    await sharedDoc(stack, pages, 'Nothing kept yet')
    await pages.alice.click('#history-open')
    await waitForShown(pages.alice, '#history-done', /^No versions yet/)
    expect(await pages.alice.locator('.history-version').count()).toBe(0)

    const text = 'Bob: tickets booked.'
    await typeAtEnd(pages.bob, '.cm-content', text)
    await waitForEditorText(pages.alice, text)
    // No Refresh pressed: the open panel asks again while it lists nothing.
    await pages.alice
      .locator('.history-version', { hasText: /^Bob · / })
      .first()
      .waitFor({ state: 'visible', ...WAIT })
    expect(await pages.alice.locator('#history-done').isVisible()).toBe(false)
  })
})
