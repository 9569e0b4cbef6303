/**
 * "Who wrote this" in real Chromium, on both editor pages, through two sidecars and the toy
 * daemon: Alice and Bob each type, each turns the toggle on, and each page marks Alice's text and
 * Bob's text by name (the sidecar's `/v1/docs/<docId>/authors`, bound to their Signal accounts).
 * One browser serves the whole file.
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { Who } from '../src/index.ts'
import { typeAtEnd, useBrowserStack } from './pages.ts'

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

/** The text marked with author `label` on `page` (editor marks carry it as `data-author`). */
async function markedBy(page: Page, markClass: string, label: RegExp): Promise<string> {
  return page.evaluate(
    ([cls, source]) =>
      [...document.querySelectorAll(`.${cls}`)]
        .filter((el) => new RegExp(source).test(el.getAttribute('data-author') ?? ''))
        .map((el) => el.textContent ?? '')
        .join(''),
    [markClass, label.source] as const,
  )
}

async function waitForMarked(page: Page, markClass: string, label: RegExp, text: string): Promise<void> {
  try {
    await page.waitForFunction(
      ([cls, source, needle]) =>
        [...document.querySelectorAll(`.${cls}`)]
          .filter((el) => new RegExp(source).test(el.getAttribute('data-author') ?? ''))
          .map((el) => el.textContent ?? '')
          .join('')
          .includes(needle),
      [markClass, label.source, text] as const,
      { timeout: 20_000 },
    )
  } catch (error) {
    const shown = await page.locator('#authors-legend').textContent()
    throw new Error(`waited 20 s for ${JSON.stringify(text)} marked ${label}; legend: ${JSON.stringify(shown)}`, {
      cause: error,
    })
  }
}

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('who wrote this, on both editor pages', () => {
  const run = useBrowserStack({ vitePort: 0, sidecarPorts: [0, 0], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } })
  const { pages } = run

  /** Both open `kind`, Alice and Bob each type a line, and each turns "Who wrote this" on. */
  async function writeAndToggle(kind: 'text' | 'rich', editor: string, words: Record<Who, string>): Promise<void> {
    for (const who of ['alice', 'bob'] as const) {
      await pages[who].goto(run.stack.link(who, kind))
      await waitForShown(pages[who], '#status', /^connected/)
    }
    await typeAtEnd(pages.alice, editor, words.alice)
    await waitForShown(pages.bob, editor, new RegExp(words.alice))
    await typeAtEnd(pages.bob, editor, words.bob)
    await waitForShown(pages.alice, editor, new RegExp(words.bob))
    for (const who of ['alice', 'bob'] as const) await pages[who].click('#authors-toggle')
  }

  test("CodeMirror: each page marks Alice's and Bob's text by name, its own as 'You'", async () => {
    await writeAndToggle('text', '.cm-content', { alice: 'Alice wrote this line.', bob: 'Bob wrote that one.' })
    await waitForMarked(pages.alice, 'cm-author', /^Bob$/, 'Bob wrote that one.')
    await waitForMarked(pages.alice, 'cm-author', /^You$/, 'Alice wrote this line.')
    await waitForMarked(pages.bob, 'cm-author', /^Alice$/, 'Alice wrote this line.')
    await waitForShown(pages.bob, '#authors-legend', /Alice/)
    // Nothing Alice wrote is marked as Bob's.
    expect(await markedBy(pages.bob, 'cm-author', /^You$/)).not.toContain('Alice')
    mkdirSync(ARTIFACTS, { recursive: true })
    await pages.bob.screenshot({ path: `${ARTIFACTS}demo-who-wrote-this-bob.png` })
    // Off again: the marks go.
    await pages.bob.click('#authors-toggle')
    await pages.bob.waitForFunction(() => document.querySelectorAll('.cm-author').length === 0)
  })

  test("ProseMirror: each page marks Alice's and Bob's text by name", async () => {
    await writeAndToggle('rich', '.ProseMirror', { alice: 'Rich words by Alice.', bob: 'Rich words by Bob.' })
    await waitForMarked(pages.alice, 'pm-author', /^Bob$/, 'Rich words by Bob.')
    await waitForMarked(pages.bob, 'pm-author', /^Alice$/, 'Rich words by Alice.')
    await waitForMarked(pages.bob, 'pm-author', /^You$/, 'Rich words by Bob.')
    expect(await markedBy(pages.alice, 'pm-author', /^Bob$/)).not.toContain('Alice')
    await pages.alice.screenshot({ path: `${ARTIFACTS}demo-who-wrote-this-rich-alice.png` })
  })
})
