/**
 * Review on the editor pages in real browsers, on the toy daemon with two real sidecars: a scripted
 * agent proposes two suggestions through Alice's sidecar API; both pages show them as tracked
 * changes (quote struck, replacement underlined, "Claude, for Alice" on hover) and list them; Bob
 * rejects one and accepts the other on his page; both pages end with the same text and no marks,
 * and "Who wrote this" credits the accepted words to "Claude, for Alice, accepted by Bob".
 * The same on the rich-text (ProseMirror) page, and a viewer sees the marks with no buttons.
 * Requires Debian's Chromium (`apt-get install chromium`; `.ci/run` does it).
 */
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { DemoStack } from '../src/index.ts'
import { editorText, waitForAllSent, waitForEditorText } from './editor-waits.ts'
import { typeAtEnd, useBrowserStack } from './pages.ts'
import { api, shareWithBob, until } from './review-stack.ts'

const WAIT = { timeout: 20_000 }
const STACK = { vitePort: 0, sidecarPorts: [0, 0] as [number, number], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } }

/** The agent: reads the text through Alice's sidecar once and proposes each change at that base. */
async function agentSuggests(
  stack: DemoStack,
  docId: string,
  changes: readonly { find: string; replace: string; note: string }[],
  target: { name: string; kind: 'text' | 'xml' } = { name: 'text', kind: 'text' },
): Promise<string[]> {
  const read = await api(stack, 'alice', `/v1/docs/${docId}/text?target=${target.name}&kind=${target.kind}`)
  expect(read.status).toBe(200)
  const ids: string[] = []
  for (const c of changes) {
    const made = await api(stack, 'alice', `/v1/docs/${docId}/suggestions`, {
      base: read.json['base'],
      ...c,
      agent: 'Claude',
      target,
    })
    expect(made.status, JSON.stringify(made.json)).toBe(201)
    ids.push(String(made.json['id']))
  }
  return ids
}

/** The tracked changes a page's editor shows, in document order: struck, underlined and hover text. */
const marksOn = (page: Page, editor: string) =>
  page.evaluate((sel) => {
    const all = (cls: string) =>
      [...document.querySelectorAll(`${sel} .${cls}`)].map((el) => ({
        text: el.textContent ?? '',
        title: el.getAttribute('title') ?? '',
        by: el.getAttribute('data-by') ?? '',
      }))
    return { struck: all('suggest-del'), underlined: all('suggest-ins') }
  }, editor)

/** Until the editor strikes exactly `struck` (in document order), every mark by `by` when given. */
async function waitForMarks(page: Page, editor: string, struck: readonly string[], by?: string): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, want, who]) => {
        const els = [...document.querySelectorAll(`${sel} .suggest-del, ${sel} .suggest-ins`)]
        const texts = els.filter((el) => el.classList.contains('suggest-del')).map((el) => el.textContent)
        return JSON.stringify(texts) === want && (who === '' || els.every((el) => el.getAttribute('data-by') === who))
      },
      [editor, JSON.stringify(struck), by ?? ''] as const,
      WAIT,
    )
  } catch (error) {
    throw new Error(`marks on the page: ${JSON.stringify(await marksOn(page, editor))}`, { cause: error })
  }
}

/** Until the text `page` marks as written by `label` ("Who wrote this" on) is exactly `text`. */
async function waitForCredited(page: Page, label: string, text: string, mark = '.cm-author'): Promise<void> {
  const credited = () =>
    page.evaluate(
      ([cls, want]) => {
        const marks = [...document.querySelectorAll(cls)].filter((el) => el.getAttribute('data-author') === want)
        // A caret's name label is drawn inside the line's text; it is not the document's.
        return marks
          .map((el) => {
            const copy = el.cloneNode(true) as Element
            for (const caret of copy.querySelectorAll('.cm-ySelectionInfo')) caret.remove()
            return copy.textContent ?? ''
          })
          .join('')
      },
      [mark, label] as const,
    )
  await until(async () => (await credited()) === text, `${JSON.stringify(text)} credited to ${label}`).catch(
    async (error: unknown) => {
      const legend = await page.locator('#authors-legend').textContent()
      throw new Error(`credited: ${JSON.stringify(await credited())}; legend ${JSON.stringify(legend)}`, {
        cause: error,
      })
    },
  )
}

const rich = (page: Page) =>
  page.evaluate(() => (window as unknown as { e2eColRich?: { text(): string } }).e2eColRich?.text())

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('suggestions on the editor pages in real browsers', () => {
  const run = useBrowserStack(STACK, {
    async prepare(page, who, stack) {
      await page.goto(stack.link(who))
      await waitForAllSent(page)
    },
  })
  const { pages } = run

  test("an agent's two suggestions show on both pages as tracked changes; Bob rejects one and accepts the other on his page", async () => {
    const { stack } = run
    const text = 'Day 1: museum. Day 2: long hike and a picnic.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await waitForAllSent(pages.alice)
    await waitForShown(pages.alice, '#review-empty', /^No suggestions yet\./)
    await until(
      async () => (await api(stack, 'alice', `/v1/docs/${stack.docId}/text`)).json['text'] === text,
      "Alice's sidecar holds the text",
    )

    const [hike, museum] = await agentSuggests(stack, stack.docId, [
      { find: 'long hike and a picnic', replace: 'picnic', note: 'day 2 is too long' },
      { find: 'museum', replace: 'gallery', note: 'closed on Mondays' },
    ])

    for (const [page, forWhom] of [
      [pages.alice, 'you'],
      [pages.bob, 'Alice'],
    ] as const) {
      await waitForMarks(page, '.cm-content', ['museum', 'long hike and a picnic'], `Claude, for ${forWhom}`)
      const marks = await marksOn(page, '.cm-content')
      expect(marks.underlined.map((m) => m.text)).toEqual(['gallery', 'picnic'])
      expect(marks.struck.map((m) => m.by)).toEqual([`Claude, for ${forWhom}`, `Claude, for ${forWhom}`])
      expect(marks.struck[1]?.title).toBe(
        `1. Claude, for ${forWhom} suggests: replace “long hike and a picnic” with “picnic”\nday 2 is too long`,
      )
      expect(marks.underlined[0]?.title).toBe(
        `2. Claude, for ${forWhom} suggests: replace “museum” with “gallery”\nclosed on Mondays`,
      )
      // The editor's text is the document's: the replacement is shown, not written.
      expect(await editorText(page)).toBe(text)
      // The list: numbered, before and after, who, note, status; buttons for editors.
      await waitForShown(page, '#review-list', /gallery/)
      expect(await page.locator('.review-item .review-head').allTextContents()).toEqual([
        `1. Claude, for ${forWhom} · open`,
        `2. Claude, for ${forWhom} · open`,
      ])
      expect(await page.locator('.review-item .review-change').allTextContents()).toEqual([
        'long hike and a picnic → picnic',
        'museum → gallery',
      ])
      expect(await page.locator('.review-item .review-note').allTextContents()).toEqual([
        'day 2 is too long',
        'closed on Mondays',
      ])
      expect(await page.locator('#review-empty').isVisible()).toBe(false)
    }

    // Hovering a struck range shows who suggested it.
    await pages.bob.hover('.cm-content .suggest-del >> nth=0')
    expect(await pages.bob.locator('.review-accept').count()).toBe(2)

    await pages.bob.locator(`.review-item[data-suggestion="${museum}"] .review-reject`).click()
    await waitForMarks(pages.alice, '.cm-content', ['long hike and a picnic'])
    await pages.bob.locator(`.review-item[data-suggestion="${hike}"] .review-accept`).click()

    const expected = 'Day 1: museum. Day 2: picnic.'
    for (const page of [pages.alice, pages.bob]) {
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === want,
        expected,
        WAIT,
      )
      await waitForMarks(page, '.cm-content', [])
      expect((await marksOn(page, '.cm-content')).underlined).toEqual([])
      expect(await editorText(page)).toBe(expected)
      await page.waitForFunction(
        () => document.querySelectorAll('.review-item[data-status="open"]').length === 0,
        undefined,
        WAIT,
      )
      expect(await page.locator('.review-item .review-status').allTextContents()).toEqual(['accepted', 'rejected'])
      expect(await page.locator('.review-accept').count()).toBe(0)
    }
    expect(await pages.bob.locator('#review-problem').isVisible()).toBe(false)

    // "Who wrote this": the accepted words are the agent's, for Alice, accepted by Bob.
    for (const page of [pages.alice, pages.bob]) await page.click('#authors-toggle')
    await waitForCredited(pages.alice, 'Claude, for you, accepted by Bob', 'picnic')
    await waitForCredited(pages.bob, 'Claude, for Alice, accepted by you', 'picnic')
    await waitForShown(pages.bob, '#authors-legend', /Claude, for Alice, accepted by you/)

    // The History panel lists the review: who suggested, for whom, and who decided, newest first.
    await pages.alice.click('#history-open')
    await waitForShown(pages.alice, '#history-review', /Bob accepted the suggestion of Claude, for you/)
    const audit = (await pages.alice.locator('.history-review-line').allTextContents()).map((l) =>
      l.replace(/^.*? · /, ''),
    )
    expect(audit.slice(0, 2)).toEqual([
      'Bob accepted the suggestion of Claude, for you: replace “long hike and a picnic” with “picnic”',
      'Bob rejected the suggestion of Claude, for you: replace “museum” with “gallery”',
    ])
    // The agent's two suggestions may carry the same millisecond: either order.
    expect(audit.slice(2).sort()).toEqual([
      'Claude, for you suggested: replace “long hike and a picnic” with “picnic”',
      'Claude, for you suggested: replace “museum” with “gallery”',
    ])
  })

  test("issue #40's story: Alice's agent suggests two changes; she accepts one from her phone, Bob rejects the other on his page", async () => {
    const { stack } = run
    const docId = await shareWithBob(stack, pages, 'Trip plan', 'editor')
    const text = 'Day 1: museum. Day 2: long hike and a picnic.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await waitForAllSent(pages.alice)
    await until(
      async () => (await api(stack, 'alice', `/v1/docs/${docId}/text`)).json['text'] === text,
      "Alice's sidecar holds the text",
    )

    // The agent, with a token of Alice's for this document only, reads once and suggests twice.
    const minted = await api(stack, 'alice', '/v1/agent-tokens', { docs: [docId], name: 'Claude' })
    const bearer = { authorization: `Bearer ${String(minted.json['token'])}` }
    const asAgent = async (path: string, body?: unknown) => {
      const res = await fetch(`${stack.sidecarUrl('alice').replace(/^ws/, 'http')}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', ...bearer },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, json: (await res.json()) as Record<string, unknown> }
    }
    const { base } = (await asAgent(`/v1/docs/${docId}/text`)).json
    for (const [find, replace] of [
      ['long hike and a picnic', 'picnic'],
      ['museum', 'gallery'],
    ])
      expect((await asAgent(`/v1/docs/${docId}/suggestions`, { base, find, replace, note: 'shorter' })).status).toBe(
        201,
      )
    for (const [page, forWhom] of [
      [pages.alice, 'you'],
      [pages.bob, 'Alice'],
    ] as const)
      await waitForMarks(page, '.cm-content', ['museum', 'long hike and a picnic'], `Claude, for ${forWhom}`)

    // Alice's phone gets one urgent Note to Self listing both; she replies accepting the hike's.
    const alice = stack.number('alice')
    const notes = () => stack.toy.sends().filter((s) => s.account === alice && s.recipients?.[0] === alice)
    await until(async () => notes().length >= 1, 'the list in Note to Self')
    const list = notes()[0]?.message ?? ''
    expect(list).toMatch(/^Claude suggests 2 changes in “Trip plan”:\n1\. .*\n2\. .*\nReply/)
    expect(notes()[0]?.urgent).toBe(true)
    const hikeNumber = /(\d)\. “long hike and a picnic”/.exec(list)?.[1]
    await fetch(`${stack.toy.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'send',
        params: { account: alice, noteToSelf: true, message: `accept ${hikeNumber}` },
      }),
    })
    await until(async () => notes().some((n) => n.message === '✅ accepted 1 of 1 in “Trip plan”'), 'the receipt')
    await waitForMarks(pages.bob, '.cm-content', ['museum'])

    // Bob rejects the other on his page.
    await pages.bob.locator('.review-item[data-status="open"] .review-reject').click()
    const expected = 'Day 1: museum. Day 2: picnic.'
    for (const page of [pages.alice, pages.bob]) {
      await waitForMarks(page, '.cm-content', [])
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === want,
        expected,
        WAIT,
      )
    }
    for (const who of ['alice', 'bob'] as const)
      await until(
        async () => (await api(stack, who, `/v1/docs/${docId}/text`)).json['text'] === expected,
        `${who}'s sidecar holds the result`,
      )
    // "Who wrote this" names the agent, for Alice, accepted by Alice, on both pages.
    for (const page of [pages.alice, pages.bob]) await page.click('#authors-toggle')
    await waitForCredited(pages.alice, 'Claude, for you, accepted by you', 'picnic')
    await waitForCredited(pages.bob, 'Claude, for Alice, accepted by Alice', 'picnic')
  })

  test('marks follow an edit made before the quoted range, and a quote edited away is marked stale with no Accept', async () => {
    const { stack } = run
    const docId = await shareWithBob(stack, pages, 'Edited under a suggestion', 'editor')
    const text = 'Pack boots and a map.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await waitForAllSent(pages.alice)
    await until(async () => (await api(stack, 'alice', `/v1/docs/${docId}/text`)).json['text'] === text, 'the text')
    await agentSuggests(stack, docId, [{ find: 'boots', replace: 'sandals', note: 'it is summer' }])
    await waitForMarks(pages.bob, '.cm-content', ['boots'])

    // Alice types at the start: Bob's mark stays on "boots".
    await pages.alice.click('.cm-content')
    await pages.alice.keyboard.press('Control+Home')
    await pages.alice.keyboard.type('Monday: ')
    await waitForEditorText(pages.bob, 'Monday: Pack')
    await waitForMarks(pages.bob, '.cm-content', ['boots'])
    // Read in the editor's document, not the line's DOM text: Alice's caret label sits in the line too.
    const at = await pages.bob.evaluate(() => {
      const el = document.querySelector('.cm-content .suggest-del')
      const view = (window as unknown as { e2eColDemo: { view: { posAtDOM(node: Node): number } } }).e2eColDemo.view
      return el === null ? undefined : view.posAtDOM(el)
    })
    expect(at).toBe('Monday: Pack '.length)

    // Alice changes the quoted word: the suggestion is stale on Bob's page, without Accept.
    await pages.alice.evaluate(() => {
      const t = (
        window as unknown as {
          e2eColDemo: { doc: { getText(n: string): { toString(): string; delete(i: number, n: number): void } } }
        }
      ).e2eColDemo.doc.getText('text')
      t.delete(t.toString().indexOf('oots'), 1)
    })
    await pages.bob.waitForFunction(
      () => document.querySelector('.review-item')?.getAttribute('data-status') === 'stale',
      undefined,
      WAIT,
    )
    expect(await pages.bob.locator('.review-item .review-status').allTextContents()).toEqual([
      'stale: the quoted text changed',
    ])
    expect(await pages.bob.locator('.review-accept').count()).toBe(0)
    expect(await pages.bob.locator('.review-reject').count()).toBe(1)
    await waitForShown(pages.bob, '.cm-content .suggest-stale', /.+/)
  })

  test("suggest mode: Bob's typing becomes a suggestion (his text unchanged), shown on Alice's page; she accepts it", async () => {
    const { stack } = run
    const docId = await shareWithBob(stack, pages, 'Suggested by Bob', 'editor')
    const text = 'Pack boots and a map.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await waitForAllSent(pages.alice)
    await until(async () => (await api(stack, 'bob', `/v1/docs/${docId}/text`)).json['text'] === text, "Bob's replica")

    await pages.bob.click('#suggest-toggle')
    await waitForShown(pages.bob, '#suggest-line', /^Suggest mode: what you type becomes a suggestion\./)
    await pages.bob.evaluate((at) => {
      const view = (window as unknown as { e2eColDemo: { view: { dispatch(spec: unknown): void } } }).e2eColDemo.view
      view.dispatch({ selection: { anchor: at, head: at + 'boots'.length } })
    }, text.indexOf('boots'))
    await pages.bob.keyboard.type('sandals')
    // The draft is drawn as a tracked change; the document is not edited.
    await waitForShown(pages.bob, '.cm-content ins.suggest-draft', /^sandals$/)
    expect(await pages.bob.locator('.cm-content .suggest-del.suggest-draft').textContent()).toBe('boots')
    expect(await editorText(pages.bob)).toBe(text)
    await pages.bob.keyboard.press('Enter')
    await waitForShown(pages.bob, '#suggest-line', /^Suggestion sent\.$/)

    await waitForMarks(pages.alice, '.cm-content', ['boots'], 'Bob')
    expect((await marksOn(pages.alice, '.cm-content')).underlined.map((m) => m.text)).toEqual(['sandals'])
    await waitForMarks(pages.bob, '.cm-content', ['boots'], 'You')
    expect(await editorText(pages.alice)).toBe(text)
    await pages.alice.locator('.review-accept').click()
    const expected = 'Pack sandals and a map.'
    for (const page of [pages.alice, pages.bob]) {
      await page.waitForFunction(
        (want) => (window as unknown as { e2eColDemo?: { text(): string } }).e2eColDemo?.text() === want,
        expected,
        WAIT,
      )
      await waitForMarks(page, '.cm-content', [])
    }
  })

  test('a viewer sees the tracked changes and the list, and no Accept or Reject', async () => {
    const { stack } = run
    const docId = await shareWithBob(stack, pages, 'Bob reads suggestions', 'viewer')
    const text = 'Only Alice writes here.'
    await typeAtEnd(pages.alice, '.cm-content', text)
    await waitForEditorText(pages.bob, text)
    await pages.bob.waitForFunction(() => document.body.dataset['role'] === 'viewer', undefined, WAIT)
    await waitForAllSent(pages.alice)
    await until(async () => (await api(stack, 'alice', `/v1/docs/${docId}/text`)).json['text'] === text, 'the text')
    await agentSuggests(stack, docId, [{ find: 'Only', replace: 'Mostly', note: 'softer' }])

    await waitForMarks(pages.bob, '.cm-content', ['Only'], 'Claude, for Alice')
    const marks = await marksOn(pages.bob, '.cm-content')
    expect(marks.underlined.map((m) => [m.text, m.by])).toEqual([['Mostly', 'Claude, for Alice']])
    await waitForShown(
      pages.bob,
      '#review-viewer',
      /^You can view this document, so you see its suggestions; only its editors accept or reject them\.$/,
    )
    expect(await pages.bob.locator('.review-item').count()).toBe(1)
    const visible = await pages.bob
      .locator('.review-accept, .review-reject')
      .evaluateAll((els) => els.filter((e) => e.checkVisibility()).length)
    expect(visible).toBe(0)
    // Alice, an editor, is offered both.
    await waitForMarks(pages.alice, '.cm-content', ['Only'])
    expect(await pages.alice.locator('.review-accept').isVisible()).toBe(true)
    expect(await pages.alice.locator('#review-viewer').isVisible()).toBe(false)
  })

  test('on the rich-text page: the suggestion is a tracked change on both pages; Bob accepts it, both read the same, the words credited to the agent', async () => {
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
    const target = { name: 'rich', kind: 'xml' } as const
    await until(
      async () =>
        String((await api(stack, 'alice', `/v1/docs/${stack.docId}/text?target=rich&kind=xml`)).json['text']).includes(
          words,
        ),
      "Alice's sidecar holds the rich text",
    )
    await agentSuggests(stack, stack.docId, [{ find: 'by tram', replace: 'on foot', note: 'cheaper' }], target)

    for (const [page, forWhom] of [
      [pages.alice, 'you'],
      [pages.bob, 'Alice'],
    ] as const) {
      await waitForMarks(page, '.ProseMirror', ['by tram'], `Claude, for ${forWhom}`)
      const marks = await marksOn(page, '.ProseMirror')
      expect(marks.underlined.map((m) => [m.text, m.by])).toEqual([['on foot', `Claude, for ${forWhom}`]])
      expect(marks.struck[0]?.title).toBe(
        `1. Claude, for ${forWhom} suggests: replace “by tram” with “on foot”\ncheaper`,
      )
    }
    await pages.bob.locator('.review-accept').click()
    for (const page of [pages.alice, pages.bob]) {
      await page.waitForFunction(
        () =>
          (window as unknown as { e2eColRich?: { text(): string } }).e2eColRich?.text().includes('on foot') === true,
        undefined,
        WAIT,
      )
      await waitForMarks(page, '.ProseMirror', [])
    }
    expect(await rich(pages.alice)).toBe(await rich(pages.bob))
    expect(await rich(pages.bob)).toContain('Day one in Lisbon on foot.')
    for (const page of [pages.alice, pages.bob]) await page.click('#authors-toggle')
    await waitForCredited(pages.alice, 'Claude, for you, accepted by Bob', 'on foot', '.pm-author')
    await waitForCredited(pages.bob, 'Claude, for Alice, accepted by you', 'on foot', '.pm-author')
  })
})
