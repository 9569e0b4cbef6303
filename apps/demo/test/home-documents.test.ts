/**
 * The first experience in real browsers: two sidecars with no E2E_COL_DOCUMENTS, two home pages.
 * Alice makes "Trip plan" for Bob, Bob accepts the invitation, both type and converge; Alice stops
 * sharing it with Bob and his sidecar stops receiving it; restarts keep documents, titles, members;
 * a stranger who picked Bob's name is shown as a stranger, and the share box will not guess which
 * Bob is meant; a linked device Signal removed is said on the home page.
 * Requires Debian's Chromium (`apt-get install chromium`).
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import type { Who } from '../src/index.ts'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import { waitForAllSent, waitForEditorText, waitForReadOnly } from './editor-waits.ts'
import { FRESH_STACK, openHome, typeAtEnd, useBrowserStack } from './pages.ts'

/** One JSON-RPC call to the toy, as a stranger's own client would make it. */
async function rpcCall(url: string, method: string, params: Record<string, unknown>): Promise<{ error?: unknown }> {
  const res = await fetch(`${url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as { error?: unknown }
}

/** What these tests read of the documents API's answers (`/v1/invites`, `/v1/contacts`). */
interface ApiAnswer {
  readonly invites?: readonly { readonly from?: unknown }[]
  readonly contacts?: readonly { number: string; shown: string; inContacts: boolean; safety?: string }[]
}

/** GET on a sidecar's documents API, as a local program (the CLI) asks it. */
function apiOf(sidecarUrl: string): (path: string) => Promise<ApiAnswer> {
  const base = sidecarUrl.replace(/^ws/, 'http')
  return async (path) => (await (await fetch(`${base}${path}`)).json()) as ApiAnswer
}

declare global {
  interface Window {
    e2eColDemo?: { text(): string; status(): { connection: string; pending: number; loaded: boolean } }
  }
}

const WAIT = { timeout: 20_000 }
/** Someone in nobody's contacts, who picks "Bob" as their Signal profile name. */
const STRANGER = '+15555550166'
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('documents made and shared from the home page', () => {
  const run = useBrowserStack(
    { ...FRESH_STACK, strangers: [STRANGER] },
    { viewport: { width: 1000, height: 800 }, timeoutMs: 60_000 },
  )
  const { pages } = run

  const home = (who: Who): Promise<void> => openHome(run, who)
  async function openDocument(who: Who, title: string): Promise<void> {
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
  const type = (who: Who, text: string): Promise<void> => typeAtEnd(pages[who], '.cm-content', text)

  test('Alice creates "Trip plan" with Bob; Bob accepts the invitation; both type and converge', async () => {
    await home('alice')
    await home('bob')
    await waitForShown(pages.alice, '#no-documents', /No documents yet/)
    // The page's root address is the home page, and speaks of documents and people only.
    expect(new URL(pages.alice.url()).pathname).toBe('/home.html')

    await pages.alice.fill('#new-document input[name=title]', 'Trip plan')
    await pages.alice.fill('#new-document input[name=numbers]', run.stack.number('bob'))
    await pages.alice.click('#new-document button[type=submit]')
    await waitForShown(pages.alice, 'li[data-doc="Trip plan"] .people-text', /^with Bob \(invited\)$/)

    await waitForShown(pages.bob, 'li[data-invite="Trip plan"] .invite-text', /^Alice shared ‘Trip plan’ with you$/)
    const body = await pages.bob.textContent('main')
    expect(body).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|group/i)
    await pages.bob.click('li[data-invite="Trip plan"] button:has-text("Accept")')
    await waitForShown(pages.bob, 'li[data-doc="Trip plan"] .people-text', /^with Alice$/)
    await waitForShown(pages.alice, 'li[data-doc="Trip plan"] .people-text', /^with Bob$/)
    expect(await pages.bob.isHidden('#invites-section')).toBe(true)
    // Both edit, so both are admins (Bob once Alice's sidecar saw him join): each may remove the other.
    await waitForShown(pages.bob, 'li[data-doc="Trip plan"] [data-person="Alice"] button', /remove/)
    expect(await pages.alice.locator('li[data-doc="Trip plan"] [data-person="Bob"] button').count()).toBe(1)
    mkdirSync(ARTIFACTS, { recursive: true })
    await pages.alice.screenshot({ path: `${ARTIFACTS}home-alice.png` })
    await pages.bob.screenshot({ path: `${ARTIFACTS}home-bob.png` })

    await openDocument('alice', 'Trip plan')
    await openDocument('bob', 'Trip plan')
    // The editor names the document by its title, not its id.
    expect(await pages.bob.textContent('#doc-title')).toBe('Trip plan')
    await type('alice', 'Day 1: Lisbon. ')
    await waitForEditorText(pages.bob, 'Day 1: Lisbon. ')
    await Promise.all([type('alice', '[alice: hotel]'), type('bob', '[bob: flights]')])
    for (const page of [pages.alice, pages.bob]) {
      await waitForEditorText(page, '[alice: hotel]')
      await waitForEditorText(page, '[bob: flights]')
    }
    const [a, b] = await Promise.all([
      pages.alice.evaluate(() => window.e2eColDemo?.text()),
      pages.bob.evaluate(() => window.e2eColDemo?.text()),
    ])
    expect(a).toBe(b)
    await waitForAllSent(pages.alice)
  }, 90_000)

  test('Alice makes Bob a viewer: his plain and rich editors turn read-only and say so; made an editor again, he types', async () => {
    // Bob's editor from the test before is still open on "Trip plan".
    await home('alice')
    const bobChip = 'li[data-doc="Trip plan"] [data-person="Bob"]'
    await pages.alice.selectOption(`${bobChip} select`, 'viewer')
    await waitForShown(pages.alice, `${bobChip}[data-role="viewer"]`, /Bob/)
    await waitForShown(pages.bob, '#read-only', /^You can view this document$/)
    await waitForReadOnly(pages.bob, true)
    const before = await pages.bob.evaluate(() => window.e2eColDemo?.text())
    await type('bob', ' [bob as a viewer]')
    expect(await pages.bob.evaluate(() => window.e2eColDemo?.text())).toBe(before)
    // The rich-text view of the same document is read-only too.
    const plain = pages.bob.url()
    await pages.bob.goto(new URL((await pages.bob.getAttribute('#other-view', 'href')) ?? '', plain).href)
    await waitForShown(pages.bob, '#read-only', /^You can view this document$/)
    await pages.bob.waitForFunction(
      () => (window as unknown as { e2eColRich?: { readOnly(): boolean } }).e2eColRich?.readOnly() === true,
      undefined,
      WAIT,
    )
    expect(await pages.bob.getAttribute('.ProseMirror', 'contenteditable')).toBe('false')
    await pages.bob.goto(plain)
    await waitForReadOnly(pages.bob, true)

    await pages.alice.selectOption(`${bobChip} select`, 'editor')
    await waitForReadOnly(pages.bob, false)
    expect(await pages.bob.isHidden('#read-only')).toBe(true)
    await type('bob', ' [bob edits again]')
    await openDocument('alice', 'Trip plan')
    await waitForEditorText(pages.alice, '[bob edits again]')
    expect(await pages.alice.evaluate(() => window.e2eColDemo?.text())).not.toContain('[bob as a viewer]')
  }, 60_000)

  test('Alice stops sharing it with Bob: his sidecar stops receiving it, and his home page says so', async () => {
    await home('alice')
    await waitForShown(pages.alice, 'li[data-doc="Trip plan"] .last-change', /^changed just now$/)
    await pages.alice.click('li[data-doc="Trip plan"] [data-person="Bob"] button')
    await pages.alice.click('li[data-doc="Trip plan"] button.danger:has-text("Remove")')
    await waitForShown(pages.alice, 'li[data-doc="Trip plan"] .people-text', /^only you$/)
    // Bob's open editor loses its connection: his sidecar no longer serves the document.
    await pages.bob.waitForFunction(() => window.e2eColDemo?.status().connection !== 'connected', undefined, WAIT)

    await openDocument('alice', 'Trip plan')
    await type('alice', ' Only for Alice now.')
    await waitForAllSent(pages.alice)
    const groupId = run.stack.toy.sends().at(-1)?.groupId
    expect(run.stack.toy.sends().filter((s) => s.groupId === groupId).length).toBeGreaterThan(0)
    expect(await pages.bob.evaluate(() => window.e2eColDemo?.text())).not.toContain('Only for Alice now.')

    await home('bob')
    await waitForShown(pages.bob, 'li[data-doc="Trip plan"] .people-text', /^you are no longer in this document$/)
  }, 60_000)

  test('restarting both sidecars keeps the documents, their titles and members', async () => {
    await home('alice')
    await pages.alice.click('li[data-doc="Trip plan"] button:has-text("Rename")')
    await pages.alice.fill('li[data-doc="Trip plan"] input[aria-label="Rename"]', 'Trip plan 2027')
    await pages.alice.click('li[data-doc="Trip plan"] button:has-text("Save")')
    await waitForShown(pages.alice, 'li[data-doc="Trip plan 2027"] .people-text', /^only you$/)

    for (const who of ['alice', 'bob'] as const) {
      await run.stack.stopSidecar(who)
      await run.stack.startSidecar(who)
    }
    await home('alice')
    await waitForShown(pages.alice, 'li[data-doc="Trip plan 2027"] .people-text', /^only you$/)
    await openDocument('alice', 'Trip plan 2027')
    await waitForEditorText(pages.alice, 'Only for Alice now.')
    await home('bob')
    await waitForShown(pages.bob, 'li[data-doc="Trip plan"] .people-text', /^you are no longer in this document$/)
  }, 90_000)

  test('a stranger named Bob shares a document with Alice: shown as a stranger, and "Bob" in the share box is refused, not guessed', async () => {
    expect((await rpcCall(run.stack.toy.url, 'updateProfile', { account: STRANGER, givenName: 'Bob' })).error).toBe(
      undefined,
    )
    // The stranger's own client writes the document mark by hand: anyone can.
    const made = await rpcCall(run.stack.toy.url, 'updateGroup', {
      account: STRANGER,
      name: 'Tax refund',
      members: [run.stack.number('alice')],
      description: 'e2e-col sync [e2e-col:doc:v1]',
    })
    expect(made.error).toBeUndefined()

    const api = apiOf(run.stack.sidecarUrl('alice'))
    const strangerShown = 'Bob (not in your contacts, …0166)'
    await expect
      .poll(async () => (await api('/v1/invites')).invites?.map((i) => i.from), WAIT)
      .toEqual([expect.objectContaining({ number: STRANGER, name: 'Bob', inContacts: false, shown: strangerShown })])
    const contacts = (await api('/v1/contacts')).contacts ?? []
    expect(contacts.find((c) => c.number === run.stack.number('bob'))).toMatchObject({
      shown: 'Bob (…0102)',
      inContacts: true,
    })
    expect(contacts.find((c) => c.number === STRANGER)).toMatchObject({ shown: strangerShown, inContacts: false })

    await home('alice')
    const card = 'li[data-invite="Tax refund"]'
    await waitForShown(
      pages.alice,
      `${card} .invite-text`,
      /^Bob \(not in your contacts, …0166\) shared ‘Tax refund’ with you$/,
    )
    await waitForShown(
      pages.alice,
      `${card} .stranger-note`,
      /^Not in your contacts: anyone can pick any name on Signal/,
    )
    expect(await pages.alice.getAttribute(card, 'data-stranger')).toBe('true')

    // The share box: "Bob" names two people, so nothing is shared and both are named as shown.
    const doc = 'li[data-doc="Trip plan 2027"]'
    const share = async (text: string): Promise<void> => {
      await pages.alice.click(`${doc} button:has-text("Share")`)
      await pages.alice.fill(`${doc} input[aria-label="Share"]`, text)
      await pages.alice.click(`${doc} button:has-text("Add")`)
    }
    await share('Bob')
    await waitForShown(
      pages.alice,
      '#problem',
      /^More than one person is named “Bob”: Bob \(…0102\); Bob \(not in your contacts, …0166\)\./,
    )
    expect(await pages.alice.textContent(`${doc} .people-text`)).toBe('only you')
    // Bob exactly as shown is the contact. He installed Signal again meanwhile: his safety number changed.
    run.stack.toy.changeIdentity(run.stack.number('bob'))
    await share('Bob (…0102)')
    await waitForShown(pages.alice, `${doc} .people-text`, /^with Bob \(…0102\) \(invited\)$/)
    const mark = `${doc} [data-person="Bob (…0102)"] [data-safety]`
    await waitForShown(pages.alice, mark, /^⚠$/)
    expect(await pages.alice.getAttribute(mark, 'data-safety')).toBe('changed')
    expect(await pages.alice.getAttribute(mark, 'title')).toMatch(/^safety number changed/)
    const bob = ((await api('/v1/contacts')).contacts ?? []).find((c) => c.number === run.stack.number('bob'))
    expect(bob?.safety).toBe('changed')
  }, 60_000)

  test("Signal removes Bob's linked device: his home page tells him how to link this computer again", async () => {
    await home('bob')
    run.stack.toy.removeLinkedDevice(run.stack.number('bob'))
    await waitForShown(
      pages.bob,
      '#problem',
      /^This computer is no longer linked to your Signal: run e2e-col setup --link$/,
    )
    // The command is shown as code, not in Markdown backticks.
    expect(await pages.bob.textContent('#problem code')).toBe('e2e-col setup --link')
  }, 60_000)
})
