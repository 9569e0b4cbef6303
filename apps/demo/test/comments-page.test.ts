/**
 * Comment threads on the plain-text page in real browsers, on the toy daemon with two real
 * sidecars: Alice selects a range and comments "@Bob is this too long?"; the thread shows on Bob's
 * page with its quote and highlight, and Bob gets one urgent message; Bob replies on his page and
 * Alice reads it; concurrent edits inside the range carry the comment along; Alice resolves it on
 * both pages; deleting the whole range keeps the thread with its original quote. A viewer sees the
 * thread and no controls; a commenter, whose editor is read-only, comments. On the rich-text page a comment on a selection shows on both pages and
 * takes a reply. Requires Debian's Chromium (`apt-get install chromium`; `.ci/run` does it).
 */
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { DemoStack } from '../src/index.ts'
import { waitForAllSent, waitForEditorText } from './editor-waits.ts'
import { typeAtEnd, useBrowserStack } from './pages.ts'
import { api, shareWithBob, until, type Who } from './review-stack.ts'

const WAIT = { timeout: 20_000 }
const STACK = { vitePort: 0, sidecarPorts: [0, 0] as [number, number], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } }

/** The ProseMirror view as the page's handle shows it, as much as a test touches. */
interface RichView {
  state: {
    doc: { textContent: string }
    selection: { constructor: { create(doc: unknown, from: number, to: number): unknown } }
    tr: { setSelection(selection: unknown): unknown }
  }
  dispatch(tr: unknown): void
}

interface DemoHandle {
  text(): string
  view: {
    dispatch(tr: unknown): void
  }
}

/** A new document of Alice's with Bob as `role`, both plain pages on it, Alice's text in it. */
async function sharedDoc(
  stack: DemoStack,
  pages: Record<Who, Page>,
  role: 'editor' | 'commenter' | 'viewer',
  text: string,
) {
  const docId = await shareWithBob(stack, pages, 'Trip plan', role)
  await typeAtEnd(pages.alice, '.cm-content', text)
  await waitForEditorText(pages.bob, text)
  await waitForAllSent(pages.alice)
  await until(
    async () => (await api(stack, 'alice', `/v1/docs/${docId}/text`)).json['text'] === text,
    "Alice's sidecar holds the text",
  )
  return docId
}

/** Selects the first `find` in the page's editor (CodeMirror positions are the text's indices). */
const select = (page: Page, find: string) =>
  page.evaluate((f) => {
    const demo = (window as unknown as { e2eColDemo: DemoHandle }).e2eColDemo
    const at = demo.text().indexOf(f)
    demo.view.dispatch({ selection: { anchor: at, head: at + f.length } })
  }, find)

/** An edit made in the page's editor, as typing would make it. */
const edit = (page: Page, change: { from: number; to?: number; insert?: string }) =>
  page.evaluate(
    (c) => (window as unknown as { e2eColDemo: DemoHandle }).e2eColDemo.view.dispatch({ changes: c }),
    change,
  )

/** The first thread as the page lists it (who · status, quote, body, replies) and what `editor` highlights. */
const threadOn = (page: Page, editor = '.cm-content') =>
  page.evaluate((editorSel) => {
    const item = document.querySelector('.comment-item')
    const text = (sel: string) => item?.querySelector(sel)?.textContent ?? ''
    return {
      head: text('.comment-head'),
      quote: text('.comment-quote'),
      body: text('.comment-body'),
      replies: [...(item?.querySelectorAll('.comment-reply-item') ?? [])].map((r) => r.textContent ?? ''),
      marked: [...document.querySelectorAll(`${editorSel} .comment-mark`)].map((m) => m.textContent ?? '').join(''),
    }
  }, editor)

type Shown = Awaited<ReturnType<typeof threadOn>>

/** Until the page shows the first thread as `want` says (the fields given). */
async function waitForThread(page: Page, want: Partial<Shown>, editor = '.cm-content'): Promise<void> {
  const matches = (shown: Shown) =>
    Object.entries(want).every(([k, v]) => JSON.stringify(shown[k as keyof Shown]) === JSON.stringify(v))
  await until(async () => matches(await threadOn(page, editor)), JSON.stringify(want)).catch(async (error: unknown) => {
    throw new Error(`thread on the page: ${JSON.stringify(await threadOn(page, editor))}`, { cause: error })
  })
}

const visibleControls = (page: Page) =>
  page
    .locator('#comment-new, .comment-reply, .comment-resolve, .comment-reopen, .comment-reply-body')
    .evaluateAll((els) => els.filter((e) => e.checkVisibility()).length)

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('comment threads on the plain-text page in real browsers', () => {
  const run = useBrowserStack(STACK, {
    async prepare(page, who, stack) {
      await page.goto(stack.link(who))
      await waitForAllSent(page)
    },
  })
  const { pages } = run

  test('Alice comments on a selection mentioning Bob; Bob reads and replies; edits carry it along; resolved on both; orphaned with its quote', async () => {
    const { stack } = run
    const docId = await sharedDoc(stack, pages, 'editor', 'Day 1: museum. Day 2: long hike and a picnic.')
    await waitForShown(pages.alice, '#comments-empty', /^No comments yet\./)

    // Nothing selected: said in words, and the comment stays in the box.
    await pages.alice.fill('#comment-body', '@Bob is this too long?')
    await pages.alice.evaluate(() =>
      (window as unknown as { e2eColDemo: DemoHandle }).e2eColDemo.view.dispatch({ selection: { anchor: 0 } }),
    )
    await pages.alice.click('#comment-add')
    await waitForShown(pages.alice, '#comments-problem', /^Select the text to comment on first/)
    expect(await pages.alice.inputValue('#comment-body')).toBe('@Bob is this too long?')

    await select(pages.alice, 'long hike')
    await pages.alice.click('#comment-add')
    const first = {
      quote: '“long hike”',
      body: '@Bob is this too long?',
      replies: [],
      marked: 'long hike',
    }
    await waitForThread(pages.alice, { ...first, head: 'You · open' })
    await waitForThread(pages.bob, { ...first, head: 'Alice · open' })
    expect(await pages.alice.inputValue('#comment-body')).toBe('')
    expect(await pages.alice.locator('#comments-problem').isVisible()).toBe(false)

    // The mention: one urgent 1:1 message from Alice's account to Bob.
    const alice = stack.number('alice')
    const bob = stack.number('bob')
    const toBob = () =>
      stack.toy.sends().filter((s) => s.account === alice && s.groupId === undefined && s.recipients?.[0] === bob)
    await until(async () => toBob().length >= 1, 'the mention sent to Bob')

    // Bob replies on his page; Alice reads it.
    await pages.bob.fill('.comment-item .comment-reply-body', 'a little; the picnic can go')
    await pages.bob.click('.comment-item .comment-reply')
    await waitForThread(pages.alice, { replies: ['Bob: a little; the picnic can go'] })
    await waitForThread(pages.bob, { replies: ['You: a little; the picnic can go'] })

    // Edits inside the range on Bob's page and before it on Alice's, at once: the thread follows.
    await edit(pages.bob, { from: 'Day 1: museum. Day 2: long'.length, insert: ' steep' })
    await edit(pages.alice, { from: 0, insert: 'Plan. ' })
    const edited = { quote: '“long steep hike”', marked: 'long steep hike' }
    await waitForThread(pages.alice, edited)
    await waitForThread(pages.bob, edited)

    // Alice resolves it: resolved on both pages, no highlight, Reopen offered.
    await pages.alice.click('.comment-item .comment-resolve')
    for (const page of [pages.alice, pages.bob]) {
      await waitForShown(page, '.comment-item .comment-status', /^resolved$/)
      await waitForThread(page, { marked: '' })
      expect(await page.locator('.comment-item .comment-reopen').isVisible()).toBe(true)
    }

    // The whole range deleted: the thread stays, with the quote it was made on.
    await pages.alice.evaluate(() => {
      const demo = (window as unknown as { e2eColDemo: DemoHandle }).e2eColDemo
      const at = demo.text().indexOf('long steep hike')
      demo.view.dispatch({ changes: { from: at, to: at + 'long steep hike'.length } })
    })
    for (const page of [pages.alice, pages.bob])
      await waitForThread(page, { quote: 'on deleted text: “long hike”', body: '@Bob is this too long?' })
    // Bob's sidecar, which got the deletion over Signal, lists the one thread orphaned too.
    const orphans = async () =>
      ((await api(stack, 'bob', `/v1/docs/${docId}/comments`)).json['comments'] as { orphaned: boolean }[]).map(
        (c) => c.orphaned,
      )
    await until(async () => JSON.stringify(await orphans()) === '[true]', "Bob's sidecar lists it orphaned")
    // Exactly one mention message reached Bob, urgent, after the reply, the edits and the resolve.
    expect(toBob().map((s) => s.urgent)).toEqual([true])
  })

  test('a viewer sees the thread, no Comment, Reply or Resolve, and a line saying why', async () => {
    const { stack } = run
    const docId = await sharedDoc(stack, pages, 'viewer', 'Only Alice writes here.')
    await pages.bob.waitForFunction(() => document.body.dataset['comments'] === 'read', undefined, WAIT)
    const made = await api(stack, 'alice', `/v1/docs/${docId}/comments`, {
      index: 0,
      length: 4,
      quote: 'Only',
      body: 'too strict?',
    })
    expect(made.status, JSON.stringify(made.json)).toBe(201)

    await waitForThread(pages.bob, { head: 'Alice · open', quote: '“Only”', body: 'too strict?', marked: 'Only' })
    await waitForShown(pages.bob, '#comments-viewer', /^You can view this document, so you see its comments;/)
    expect(await visibleControls(pages.bob)).toBe(0)
    // Alice, an editor, is offered them.
    await waitForThread(pages.alice, { head: 'You · open' })
    expect(await visibleControls(pages.alice)).toBeGreaterThan(0)
    expect(await pages.alice.locator('#comments-viewer').isVisible()).toBe(false)
  })

  test("a commenter's editor is read-only, yet Bob comments on a selection there and Alice reads it", async () => {
    const { stack } = run
    await sharedDoc(stack, pages, 'commenter', 'Bob may only comment here.')
    await pages.bob.waitForFunction(
      () => document.body.dataset['comments'] === 'write' && document.body.dataset['role'] === 'viewer',
      undefined,
      WAIT,
    )
    expect(
      await pages.bob.evaluate(() =>
        (window as unknown as { e2eColDemo: { readOnly(): boolean } }).e2eColDemo.readOnly(),
      ),
    ).toBe(true)
    expect(await pages.bob.locator('#comments-viewer').isVisible()).toBe(false)
    await select(pages.bob, 'only comment')
    await pages.bob.fill('#comment-body', 'fair enough')
    await pages.bob.click('#comment-add')
    const shown = { quote: '“only comment”', body: 'fair enough', marked: 'only comment' }
    await waitForThread(pages.alice, { ...shown, head: 'Bob · open' })
    await waitForThread(pages.bob, { ...shown, head: 'You · open' })
  })

  test('on the rich-text page: Alice comments on a selection, Bob sees it highlighted with its quote and replies', async () => {
    const { stack } = run
    for (const who of ['alice', 'bob'] as const) {
      await pages[who].goto(stack.link(who, 'rich'))
      await pages[who].waitForFunction(
        () => (window as unknown as { e2eColRich?: { provider: { synced: boolean } } }).e2eColRich?.provider.synced,
        undefined,
        WAIT,
      )
    }
    const words = 'Day one in Lisbon by tram.'
    await typeAtEnd(pages.alice, '.ProseMirror', words)
    await waitForEditorText(pages.bob, words, 'rich')
    await until(
      async () =>
        String((await api(stack, 'alice', `/v1/docs/${stack.docId}/text?target=rich&kind=xml`)).json['text']).includes(
          words,
        ),
      "Alice's sidecar holds the rich text",
    )
    // Selects "by tram" in the editor (the one paragraph's text starts at position 1).
    await pages.alice.evaluate((find) => {
      const { view } = (window as unknown as { e2eColRich: { view: RichView } }).e2eColRich
      const at = 1 + view.state.doc.textContent.indexOf(find)
      const Selection = view.state.selection.constructor
      view.dispatch(view.state.tr.setSelection(Selection.create(view.state.doc, at, at + find.length)))
    }, 'by tram')
    await pages.alice.fill('#comment-body', 'or on foot?')
    await pages.alice.click('#comment-add')
    const shown = { quote: '“by tram”', body: 'or on foot?', marked: 'by tram' }
    await waitForThread(pages.alice, { ...shown, head: 'You · open' }, '.ProseMirror')
    await waitForThread(pages.bob, { ...shown, head: 'Alice · open' }, '.ProseMirror')

    await pages.bob.fill('.comment-item .comment-reply-body', 'tram, it rains')
    await pages.bob.click('.comment-item .comment-reply')
    await waitForThread(pages.alice, { replies: ['Bob: tram, it rains'] }, '.ProseMirror')
  })
})
