/**
 * "Delete for everyone" on the home page, in real Chromium over one stack (decisions/0028): an
 * editor's card asks first ("Delete ‘Trip plan’ for Bob? This cannot be undone." · Delete ·
 * Cancel); Cancel keeps the document; Delete ends it for everyone. Bob's open editor says who
 * deleted it and turns read-only, and both home pages list it as deleted for everyone.
 * Requires Debian's Chromium (`apt-get install chromium`).
 */
import { describe, expect, test } from 'vitest'
import { CHROMIUM, hasChromium, waitForShown } from '@e2e-col/test-browser'
import type { Who } from '../src/index.ts'
import { waitForAllSent, waitForReadOnly } from './editor-waits.ts'
import { FRESH_STACK, openHome, useBrowserStack } from './pages.ts'
import { callApi, invitesIn, madeDocId } from './docs-api.ts'

const TITLE = 'Trip plan'

if (!hasChromium()) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('delete for everyone on the home page', () => {
  const run = useBrowserStack(FRESH_STACK, { viewport: { width: 1280, height: 800 }, timeoutMs: 60_000 })
  const { pages } = run
  const api = (who: Who, method: string, path: string, body?: unknown): Promise<unknown> =>
    callApi(run.stack.sidecarUrl(who), method, path, body)

  test('asked first, cancelled, then deleted: Bob’s editor and both home pages say Alice deleted it', async () => {
    const docId = madeDocId(
      await api('alice', 'POST', '/v1/docs', { title: TITLE, members: [run.stack.number('bob')] }),
    )
    await expect.poll(async () => invitesIn(await api('bob', 'GET', '/v1/invites')).length, { timeout: 20_000 }).toBe(1)
    await api('bob', 'POST', `/v1/invites/${docId}/accept`, {})
    await openHome(run, 'bob')
    await pages.bob.click(`li[data-doc="${TITLE}"] a.title`)
    await waitForAllSent(pages.bob)

    await openHome(run, 'alice')
    const card = `li[data-doc="${TITLE}"]`
    await pages.alice.click(`${card} button:has-text("Delete for everyone")`)
    expect(await pages.alice.textContent(`${card} .question`)).toBe(
      'Delete ‘Trip plan’ for Bob? This cannot be undone.',
    )
    await pages.alice.click(`${card} button:has-text("Cancel")`)
    expect(await pages.alice.getAttribute(card, 'data-state')).toBe('active')
    await pages.alice.click(`${card} button:has-text("Delete for everyone")`)
    await pages.alice.click(`${card} button.danger:has-text("Delete")`)
    await waitForShown(pages.alice, `${card} .removed-by`, /^You deleted ‘Trip plan’ for everyone$/)

    await waitForShown(pages.bob, '#advice', /^Alice deleted ‘Trip plan’ for everyone\./)
    await waitForReadOnly(pages.bob, true)
    await openHome(run, 'bob')
    await waitForShown(pages.bob, `${card} .removed-by`, /^Alice deleted ‘Trip plan’ for everyone$/)
    expect(await pages.bob.textContent(`${card} .people-text`)).toBe('deleted for everyone')
  })
})
