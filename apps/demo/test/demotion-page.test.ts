/**
 * What Bob's page shows when Alice makes him a viewer before his edit was sent (decisions/0032),
 * in real Chromium over two real sidecars and the toy, on the plain and on the rich-text page:
 * "Alice made you a viewer", the edit listed as not shared, with why and a Copy button (the copied
 * text read back from the clipboard); once his sidecar has rebuilt its replica from Alice's state,
 * his page loads again and shows the group's text, the list still there; Alice never gets the edit.
 * Requires Debian's Chromium (`apt-get install chromium`).
 */
import { describe, expect, test } from 'vitest'
import type { Who } from '../src/index.ts'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import { waitForEditorText, waitForReadOnly } from './editor-waits.ts'
import { FRESH_STACK, openHome, SIDECAR_ENV_WITH_FAULTS, typeAtEnd, useBrowserStack } from './pages.ts'

declare global {
  interface Window {
    e2eColDemo?: { text(): string; status(): { connection: string; pending: number; loaded: boolean } }
  }
}

/** The rich-text page's debug handle, as these tests read it (rich-text.test.ts declares the whole). */
type RichWindow = {
  e2eColRich?: {
    text(): string
    readOnly(): boolean
    provider: { clientStatus: { connection: string; pending: number; loaded: boolean } }
  }
}

const WAIT = { timeout: 30_000 }
const IO_FAILURE = { code: -32603, message: 'Failed to send message: no network (IOException)' }

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())("a demotion that overtakes Bob's unsent edit, on his page", () => {
  const run = useBrowserStack(
    { ...FRESH_STACK, faults: true, sidecarEnv: { ...SIDECAR_ENV_WITH_FAULTS } },
    { viewport: { width: 1000, height: 800 }, timeoutMs: 60_000 },
  )
  const { pages } = run
  async function openDocument(who: Who, title: string): Promise<void> {
    await openHome(run, who)
    await pages[who].click(`li[data-doc="${title}"] a.title`)
    await pages[who].waitForFunction(
      () => {
        const s = window.e2eColDemo?.status()
        return s?.connection === 'connected' && s.loaded
      },
      undefined,
      WAIT,
    )
  }

  /** Alice shares `title` with Bob, who accepts. */
  async function shareWithBob(title: string): Promise<void> {
    await openHome(run, 'alice')
    await openHome(run, 'bob')
    await pages.alice.fill('#new-document input[name=title]', title)
    await pages.alice.fill('#new-document input[name=numbers]', run.stack.number('bob'))
    await pages.alice.click('#new-document button[type=submit]')
    await waitForShown(pages.bob, `li[data-invite="${title}"] .invite-text`, new RegExp(`shared ‘${title}’ with you`))
    await pages.bob.click(`li[data-invite="${title}"] button:has-text("Accept")`)
    await waitForShown(pages.alice, `li[data-doc="${title}"] .people-text`, /^with Bob$/)
    await waitForShown(pages.bob, `li[data-doc="${title}"] [data-person="Alice"] button`, /remove/)
  }

  /** Opens `title` from the home page, then its rich-text page (the same link, `rich.html`). */
  async function openRich(who: Who, title: string): Promise<void> {
    await openDocument(who, title)
    const url = new URL(pages[who].url())
    url.pathname = '/rich.html'
    await pages[who].goto(url.toString())
    await pages[who].waitForFunction(
      () => {
        const s = (window as unknown as RichWindow).e2eColRich?.provider.clientStatus
        return s?.connection === 'connected' && s.loaded
      },
      undefined,
      WAIT,
    )
  }

  test('his page lists the edit not shared, with why and Copy, and shows the group’s text once rebuilt', async () => {
    await shareWithBob('Trip plan')
    await openDocument('bob', 'Trip plan')
    await openDocument('alice', 'Trip plan')
    await typeAtEnd(pages.alice, '.cm-content', 'Day 1: Lisbon.')
    await waitForEditorText(pages.bob, 'Day 1: Lisbon.')

    // Bob's sends fail: his edit is saved by his sidecar (nothing pending in the page), not sent.
    run.stack.toy.faults.failNextSendsWith(100_000, IO_FAILURE, { from: run.stack.number('bob') })
    await typeAtEnd(pages.bob, '.cm-content', ' [bob unsent]')
    await pages.bob.waitForFunction(() => window.e2eColDemo?.status().pending === 0, undefined, WAIT)

    // Alice makes him a viewer from her home page.
    await openHome(run, 'alice')
    const bobChip = 'li[data-doc="Trip plan"] [data-person="Bob"]'
    await pages.alice.selectOption(`${bobChip} select`, 'viewer')
    await waitForShown(pages.alice, `${bobChip}[data-role="viewer"]`, /Bob/)

    await waitForReadOnly(pages.bob, true)
    await waitForShown(pages.bob, '#made-by', /^Alice made you a viewer$/)
    await waitForShown(pages.bob, '#not-shared', /^Alice made you a viewer before these edits reached the others/)
    await waitForShown(pages.bob, '#not-shared [data-reason="unsent"] pre', /^ \[bob unsent\]$/)
    expect(await pages.bob.textContent('#not-shared [data-reason="unsent"] p')).toMatch(
      /not sent before you were made a viewer/,
    )
    expect(await pages.bob.locator('#not-shared button:has-text("Copy")').count()).toBe(1)

    // Signal takes his sends again: his sidecar rebuilds from Alice's state and his page loads again.
    run.stack.toy.faults.reset()
    await pages.bob
      .waitForFunction(
        () => window.e2eColDemo?.status().connection === 'connected' && window.e2eColDemo.text() === 'Day 1: Lisbon.',
        undefined,
        WAIT,
      )
      .catch(async (error: unknown) => {
        // What the page and its sidecar held when the wait gave up.
        const docId = new URL(pages.bob.url()).searchParams.get('doc') ?? ''
        const api = run.stack.sidecarUrl('bob').replace(/^ws/, 'http')
        const kept = await (await fetch(`${api}/v1/docs/${docId}/not-shared`)).text()
        const shown = await pages.bob.evaluate(() => [
          window.e2eColDemo?.text(),
          window.e2eColDemo?.status().connection,
        ])
        throw new Error(`Bob's page shows ${JSON.stringify(shown)}; his sidecar keeps ${kept}`, { cause: error })
      })
    await waitForShown(pages.bob, '#not-shared [data-reason="unsent"] pre', /^ \[bob unsent\]$/)
    await openDocument('alice', 'Trip plan')
    expect(await pages.alice.evaluate(() => window.e2eColDemo?.text())).toBe('Day 1: Lisbon.')
  }, 180_000)

  test('the rich-text page lists it the same: who, why, Copy, then the group’s text once rebuilt', async () => {
    await shareWithBob('Rich plan')
    await openRich('bob', 'Rich plan')
    await openRich('alice', 'Rich plan')
    await typeAtEnd(pages.alice, '.ProseMirror', 'Day 1: Porto.')
    await waitForEditorText(pages.bob, 'Day 1: Porto.', 'rich')

    run.stack.toy.faults.failNextSendsWith(100_000, IO_FAILURE, { from: run.stack.number('bob') })
    await typeAtEnd(pages.bob, '.ProseMirror', ' [bob rich]')
    await pages.bob.waitForFunction(
      () => (window as unknown as RichWindow).e2eColRich?.provider.clientStatus.pending === 0,
      undefined,
      WAIT,
    )

    await openHome(run, 'alice')
    const bobChip = 'li[data-doc="Rich plan"] [data-person="Bob"]'
    await pages.alice.selectOption(`${bobChip} select`, 'viewer')
    await waitForShown(pages.alice, `${bobChip}[data-role="viewer"]`, /Bob/)

    await pages.bob.waitForFunction(
      () => (window as unknown as RichWindow).e2eColRich?.readOnly() === true,
      undefined,
      WAIT,
    )
    await waitForShown(pages.bob, '#made-by', /^Alice made you a viewer$/)
    await waitForShown(pages.bob, '#not-shared', /^Alice made you a viewer before these edits reached the others/)
    await waitForShown(pages.bob, '#not-shared [data-reason="unsent"] pre', /^ \[bob rich\]$/)
    expect(await pages.bob.textContent('#not-shared [data-reason="unsent"] p')).toBe(
      'saved on this computer, not sent before you were made a viewer (Alice made the change):',
    )
    await pages.bob.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(pages.bob.url()).origin,
    })
    await pages.bob.click('#not-shared [data-reason="unsent"] button:has-text("Copy")')
    await waitForShown(pages.bob, '#not-shared [data-reason="unsent"] button', /^Copied$/)
    expect(await pages.bob.evaluate(() => navigator.clipboard.readText())).toBe(' [bob rich]')

    // Signal takes his sends again: his sidecar rebuilds from Alice's state and his page loads again.
    run.stack.toy.faults.reset()
    await pages.bob.waitForFunction(
      () =>
        (window as unknown as RichWindow).e2eColRich?.provider.clientStatus.connection === 'connected' &&
        (window as unknown as RichWindow).e2eColRich?.text() === 'Day 1: Porto.',
      undefined,
      WAIT,
    )
    expect(await pages.bob.textContent('.ProseMirror')).toBe('Day 1: Porto.')
    await waitForShown(pages.bob, '#not-shared [data-reason="unsent"] pre', /^ \[bob rich\]$/)
    await waitForShown(pages.bob, '#made-by', /^Alice made you a viewer$/)
    await openRich('alice', 'Rich plan')
    expect(await pages.alice.evaluate(() => (window as unknown as RichWindow).e2eColRich?.text())).toBe('Day 1: Porto.')
  }, 180_000)
})
