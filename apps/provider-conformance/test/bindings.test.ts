/**
 * Editor bindings we did not write, on E2eColProvider as an adopter would use it: a fresh Vite app
 * outside the repository installs the packed `@e2e-col/*` tarballs with TipTap 3 (Collaboration +
 * CollaborationCaret), Lexical 0.52 (CollaborationPlugin with shouldBootstrap) and y-monaco, each
 * person's page in its own Chromium context against their own sidecar on the toy daemon
 * (bindings-app/ is the app's source). In TipTap and Lexical, Alice and Bob also type into the same
 * paragraph at the same moment (issue #36, as apps/demo/test/concurrent-typing.test.ts does for the
 * demo's editors).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startDemoStack, type DemoStack } from '@e2e-col/demo'
import { CHROMIUM, hasChromium, launchChromium } from '@e2e-col/test-browser'
import type { Browser, Page } from 'playwright-core'
import { preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { appLockfile } from '../../demo/test/app-lockfile.ts'
import {
  counterAt,
  count,
  FORGED_AUTHOR,
  settledTexts,
  typeUntil,
  TYPING_MS,
} from '../../demo/test/concurrent-typing.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const APP_FILES = fileURLToPath(new URL('../bindings-app/', import.meta.url))
/** The third-party packages the app installs, at the versions this repository's lockfile has. */
const THIRD_PARTY = [
  'yjs',
  'y-protocols',
  'lib0',
  '@tiptap/core',
  '@tiptap/pm',
  '@tiptap/starter-kit',
  '@tiptap/extension-collaboration',
  '@tiptap/extension-collaboration-caret',
  '@tiptap/y-tiptap',
  'lexical',
  '@lexical/react',
  '@lexical/yjs',
  'react',
  'react-dom',
  'y-monaco',
  'monaco-editor',
]
const OURS = ['protocol', 'sync', 'transport', 'client']

const node = (script: string, args: string[], cwd: string): string =>
  execFileSync(process.execPath, [join(ROOT, script), ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })

function versions(): Record<string, string> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>
  }
  return Object.fromEntries(
    THIRD_PARTY.map((name) => {
      const version = lock.packages[`node_modules/${name}`]?.version
      if (version === undefined) throw new Error(`${name} is not in the repository's lockfile`)
      return [name, version]
    }),
  )
}

/** Waits for `check` to hold in the page (polling); fails naming `what`. */
// A ceiling, not a timing: presence waits behind edits and its own pacing, which a busy machine stretches.
const SHOWN_MS = 60_000

async function shown(page: Page, what: string, check: string): Promise<void> {
  try {
    await page.waitForFunction(check, undefined, { timeout: SHOWN_MS, polling: 50 })
  } catch (error) {
    // What the page showed instead: the carets' labels, so a failure says whose caret was there.
    const labels = await page
      .evaluate(() => [...document.querySelectorAll('[class*="caret"][class*="label"]')].map((l) => l.textContent))
      .catch(() => [])
    throw new Error(`waited ${SHOWN_MS / 1000} s for ${what}; caret labels shown: ${JSON.stringify(labels)}`, {
      cause: error,
    })
  }
}

/**
 * A caret labelled as the sidecar names its sender: the name this person's contacts give
 * (decisions/0019: never the name the other page picked). The sidecar reads the contacts before it
 * stamps any presence, so the number never shows instead (apps/sidecar/test/names-at-start.test.ts).
 */
const caretOf = (name: string): string =>
  `[...document.querySelectorAll('.collaboration-carets__label')].some((l) => l.textContent === ${JSON.stringify(name)})`

/** The text in the page's editor. */
const bindingText = (page: Page): Promise<string> =>
  page.evaluate(() => (window as unknown as { binding: { text(): string } }).binding.text())

/** Paragraphs in the page's Lexical editor. */
const paragraphs = (page: Page): Promise<number> =>
  page.evaluate(() => (window as unknown as { binding: { paragraphs(): number } }).binding.paragraphs())

if (!hasChromium()) console.warn(`bindings test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('editor bindings we did not write, installed from the tarballs', () => {
  let app: string
  let server: PreviewServer | undefined
  let stack: DemoStack | undefined
  let browser: Browser | undefined
  let origin = ''

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'e2e-col-bindings-app-'))
    const tarballs = node('node_modules/tsx/dist/cli.mjs', ['scripts/pack-packages.ts', join(app, 'tarballs')], ROOT)
      .trim()
      .split('\n')
    const byName = new Map<string, string>()
    for (const file of tarballs) {
      const name = /\/e2e-col-([a-z-]+)-0\.1\.0\.tgz$/.exec(file)?.[1]
      if (name !== undefined && OURS.includes(name)) byName.set(`@e2e-col/${name}`, file)
    }
    expect([...byName.keys()].length, `tarballs of ${OURS.join(', ')} in ${tarballs.join(', ')}`).toBe(OURS.length)
    const { manifestDependencies, lockfile } = appLockfile(join(ROOT, 'package-lock.json'), byName, versions())
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'bindings-app', private: true, type: 'module', dependencies: manifestDependencies }),
    )
    writeFileSync(join(app, 'package-lock.json'), lockfile)
    cpSync(APP_FILES, app, { recursive: true })
    // Third-party packages from the npm cache alone (the lockfile pins what this repository installed).
    execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: app,
      stdio: 'pipe',
      timeout: 180_000,
    })
    node('node_modules/vite/bin/vite.js', ['build', '--logLevel', 'error'], app)
    server = await preview({ root: app, preview: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' })
    origin = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`
    stack = await startDemoStack({
      page: false,
      sidecarPorts: [0, 0],
      sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent', E2E_COL_ALLOWED_ORIGINS: origin, E2E_COL_SENDS_PER_SECOND: '5' },
    })
    browser = await launchChromium()
  }, 420_000)

  afterAll(async () => {
    await browser?.close()
    await stack?.close()
    await server?.close()
    if (app !== undefined) rmSync(app, { recursive: true, force: true })
  }, 120_000)

  /** A person's page in its own context (its own IndexedDB, as on another machine). */
  async function open(editor: 'tiptap' | 'lexical' | 'monaco', who: 'alice' | 'bob'): Promise<Page> {
    if (browser === undefined || stack === undefined) throw new Error('not started')
    const page = await (await browser.newContext()).newPage()
    page.on('pageerror', (error) => console.error(`[${who} ${editor} page error]`, error))
    const name = who === 'alice' ? 'Alice' : 'Bob'
    await page.goto(`${origin}/?editor=${editor}&sidecar=${stack.sidecarUrl(who)}&doc=${stack.docId}&name=${name}`)
    await shown(page, `${who}'s ${editor} page synced`, 'window.binding?.synced() === true')
    return page
  }

  /** Alice's and Bob's pages of `editor`: each types into `selector`, and each sees the other's text. */
  async function typedBothWays(
    editor: 'tiptap' | 'monaco',
    selector: string,
    [aliceText, bobText]: readonly [string, string],
  ): Promise<{ alice: Page; bob: Page }> {
    const alice = await open(editor, 'alice')
    const bob = await open(editor, 'bob')
    await alice.click(selector)
    await alice.keyboard.type(aliceText)
    await shown(bob, "Alice's text at Bob", `window.binding.text().includes(${JSON.stringify(aliceText.trim())})`)
    await bob.click(selector)
    await bob.keyboard.press('Control+End')
    await bob.keyboard.type(bobText)
    await shown(alice, "Bob's text at Alice", `window.binding.text().includes(${JSON.stringify(bobText)})`)
    return { alice, bob }
  }

  test('TipTap 3: text both ways, carets under each name, the content after a reload', async () => {
    const { alice, bob } = await typedBothWays('tiptap', '.ProseMirror', ['Alice writes in TipTap. ', 'Bob answers.'])
    await shown(alice, "Bob's caret at Alice", caretOf('Bob'))
    await shown(bob, "Alice's caret at Bob", caretOf('Alice'))
    await shown(bob, "Bob's changes saved", 'window.binding.pending() === 0')
    await bob.reload()
    await shown(bob, 'Bob synced after the reload', 'window.binding?.synced() === true')
    const text = await bob.evaluate(() => (window as unknown as { binding: { text(): string } }).binding.text())
    expect(text).toContain('Alice writes in TipTap.')
    expect(text).toContain('Bob answers.')
    // One caret per person after the reload: the old page's presence left with it.
    await bob.click('.ProseMirror')
    await shown(
      alice,
      "one caret for Bob after his reload, not two (the old page's is gone)",
      "document.querySelectorAll('.collaboration-carets__caret').length === 1",
    )
    await alice.context().close()
    await bob.context().close()
  }, 240_000)

  test('Lexical CollaborationPlugin with shouldBootstrap adds nothing to a document that has content', async () => {
    const alice = await open('lexical', 'alice')
    await alice.click('.lexical')
    await alice.keyboard.type('First paragraph')
    await alice.keyboard.press('Enter')
    await alice.keyboard.type('Second paragraph')
    await shown(alice, "Alice's changes saved", 'window.binding.pending() === 0')
    expect(await paragraphs(alice)).toBe(2)
    const bob = await open('lexical', 'bob')
    await shown(bob, "Alice's paragraphs at Bob", "window.binding.text().includes('Second paragraph')")
    expect(await paragraphs(bob)).toBe(2)
    await bob.reload()
    await shown(bob, 'Bob synced after the reload', 'window.binding?.synced() === true')
    await shown(bob, 'the paragraphs after the reload', "window.binding.text().includes('Second paragraph')")
    await new Promise((resolve) => setTimeout(resolve, 1000)) // a bootstrap paragraph would reach Alice by now
    expect(await paragraphs(bob)).toBe(2)
    expect(await paragraphs(alice)).toBe(2)
    await alice.context().close()
    await bob.context().close()
  }, 240_000)

  test.each([
    ['tiptap', '.ProseMirror'],
    ['lexical', '.lexical'],
  ] as const)(
    '%s: Alice and Bob type into the same paragraph at once: same text, every letter, no forged author',
    async (editor, selector) => {
      if (stack === undefined) throw new Error('not started')
      const pages = { alice: await open(editor, 'alice'), bob: await open(editor, 'bob') }
      const seed = `Both type here in ${editor}:`
      await pages.alice.click(selector)
      await pages.alice.keyboard.press('Control+End')
      await pages.alice.keyboard.type(seed)
      await shown(pages.bob, 'the shared paragraph at Bob', `window.binding.text().includes(${JSON.stringify(seed)})`)
      await pages.bob.click(selector)
      await pages.bob.keyboard.press('Control+End')
      const start = await bindingText(pages.alice)
      const letters = { alice: 'a', bob: 'b' }
      const base = { alice: count(start, letters.alice), bob: count(start, letters.bob) }
      const until = Date.now() + TYPING_MS
      const [alice, bob] = await Promise.all([
        typeUntil(pages.alice, letters.alice, until),
        typeUntil(pages.bob, letters.bob, until),
      ])
      const texts = await settledTexts(pages, bindingText, { letters, base, typed: { alice, bob } })
      expect(texts.bob).toBe(texts.alice)
      expect(count(texts.alice, letters.alice)).toBe(base.alice + alice)
      expect(count(texts.alice, letters.bob)).toBe(base.bob + bob)
      for (const who of ['alice', 'bob'] as const)
        expect(await counterAt(stack.sidecarUrl(who).replace(/^ws/, 'http'), FORGED_AUTHOR)).toBe(0)
      await pages.alice.context().close()
      await pages.bob.context().close()
    },
    240_000,
  )

  test("y-monaco: text both ways and the other person's cursor", async () => {
    const { alice, bob } = await typedBothWays('monaco', '.monaco-editor .view-lines', [
      'alice types in monaco ',
      'and bob answers',
    ])
    await shown(alice, "Bob's cursor at Alice", "document.querySelectorAll('.yRemoteSelectionHead').length === 1")
    await alice.context().close()
    await bob.context().close()
  }, 240_000)
})
