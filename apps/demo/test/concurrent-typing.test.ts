/**
 * Authorship that holds under concurrency (issue #36), in real Chromium on both demo editors:
 * Alice and Bob type into the same paragraph at the same moment for {@link TYPING_MS}, Alice the
 * letter `a`, Bob `b`. Both pages end with the same text holding every letter each typed, neither
 * sidecar dropped an update as written under another account's client id (a page that sent the
 * other person's structs as its own would make the other's sidecar drop them), and both sidecars
 * attribute each page's client id to the person who typed there.
 */
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { DemoStack, Who } from '../src/index.ts'
import { counterAt, count, FORGED_AUTHOR, settledTexts, typeUntil, TYPING_MS } from './concurrent-typing.ts'
import { typeAtEnd, useBrowserStack } from './pages.ts'

interface EditorHandle {
  text(): string
  doc: { clientID: number }
}
type Kind = 'text' | 'rich'
const HANDLE = { text: 'e2eColDemo', rich: 'e2eColRich' } as const
const EDITOR = { text: '.cm-content', rich: '.ProseMirror' } as const
const LETTER: Record<Who, string> = { alice: 'a', bob: 'b' }

function textOf(page: Page, kind: Kind): Promise<string> {
  return page.evaluate(
    (name) => (window as unknown as Record<string, EditorHandle | undefined>)[name]?.text() ?? '',
    HANDLE[kind],
  )
}

function clientIdOf(page: Page, kind: Kind): Promise<number> {
  return page.evaluate(
    (name) => (window as unknown as Record<string, EditorHandle | undefined>)[name]?.doc.clientID ?? -1,
    HANDLE[kind],
  )
}

const httpBase = (stack: DemoStack, who: Who): string => stack.sidecarUrl(who).replace(/^ws/, 'http')

/** Who `sidecar` says wrote under `clientId` (its number, when verified), polled until it says or 20 s pass. */
async function authorAt(stack: DemoStack, sidecar: Who, clientId: number): Promise<string | undefined> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const res = await fetch(`${httpBase(stack, sidecar)}/v1/docs/${stack.docId}/authors`)
    const { authors } = (await res.json()) as { authors: Record<string, { verified: boolean; number?: string }> }
    const view = authors[String(clientId)]
    if (view?.verified === true || Date.now() > deadline) return view?.number
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('two people typing into the same paragraph at the same moment', () => {
  const run = useBrowserStack({ vitePort: 0, sidecarPorts: [0, 0], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } })
  const { pages } = run

  async function typeTogether(kind: Kind): Promise<void> {
    const { stack } = run
    for (const who of ['alice', 'bob'] as const) {
      await pages[who].goto(stack.link(who, kind))
      await waitForShown(pages[who], '#status', /^connected/)
    }
    // One paragraph both pages hold, both carets at its end.
    const seed = `Both type here (${kind}): `
    await typeAtEnd(pages.alice, EDITOR[kind], seed)
    await pages.bob.waitForFunction(
      ([name, needle]) =>
        (window as unknown as Record<string, EditorHandle | undefined>)[name]?.text().includes(needle) === true,
      [HANDLE[kind], seed] as const,
      { timeout: 20_000 },
    )
    await pages.bob.click(EDITOR[kind])
    await pages.bob.keyboard.press('Control+End')
    await pages.alice.keyboard.press('Control+End')
    const start = await textOf(pages.alice, kind)
    const base = { alice: count(start, LETTER.alice), bob: count(start, LETTER.bob) }

    const until = Date.now() + TYPING_MS
    const [alice, bob] = await Promise.all([
      typeUntil(pages.alice, LETTER.alice, until),
      typeUntil(pages.bob, LETTER.bob, until),
    ])
    const texts = await settledTexts(pages, (page) => textOf(page, kind), {
      letters: LETTER,
      base,
      typed: { alice, bob },
    })
    expect(texts.bob).toBe(texts.alice)
    expect(count(texts.alice, LETTER.alice)).toBe(base.alice + alice)
    expect(count(texts.alice, LETTER.bob)).toBe(base.bob + bob)

    for (const who of ['alice', 'bob'] as const) expect(await counterAt(httpBase(stack, who), FORGED_AUTHOR)).toBe(0)
    // Each page's client id is its person's on both sidecars.
    for (const writer of ['alice', 'bob'] as const) {
      const clientId = await clientIdOf(pages[writer], kind)
      for (const sidecar of ['alice', 'bob'] as const)
        expect(await authorAt(stack, sidecar, clientId), `${writer}'s id at ${sidecar}'s sidecar`).toBe(
          stack.number(writer),
        )
    }
  }

  test('CodeMirror (y-codemirror.next through connectDoc)', async () => {
    await typeTogether('text')
  }, 120_000)

  test('ProseMirror (y-prosemirror through E2eColProvider)', async () => {
    await typeTogether('rich')
  }, 120_000)
})
