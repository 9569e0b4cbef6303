// A page wait in real Chromium: it returns once the text appears, and a wait that never ends
// well names what the page showed.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, hasChromium, launchChromium, waitForShown } from './index.ts'

const noChromium = `no Chromium at ${CHROMIUM} (apt-get install chromium)`
if (!hasChromium()) console.warn(`page wait tests skipped: ${noChromium}`)

describe.skipIf(!hasChromium())(hasChromium() ? 'waitForShown' : `waitForShown (skipped: ${noChromium})`, () => {
  let browser: Browser | undefined
  let page: Page
  beforeAll(async () => {
    browser = await launchChromium()
    page = await browser.newPage()
  }, 30_000)
  afterAll(async () => {
    await browser?.close()
  })

  it('returns once the element shows matching text, its flags kept', async () => {
    await page.setContent('<p id="status">connecting</p>')
    await page.evaluate(() => {
      setTimeout(() => {
        const status = document.querySelector('#status')
        if (status !== null) status.textContent = 'All Changes Saved'
      }, 200)
    })
    await waitForShown(page, '#status', /^all changes saved$/i, 10_000)
    expect(await page.textContent('#status')).toBe('All Changes Saved')
  })

  it('fails after its deadline saying what the element showed instead', async () => {
    await page.setContent('<p id="status">offline</p>')
    await expect(waitForShown(page, '#status', /^all changes saved$/, 300)).rejects.toThrow(
      '#status shows "offline", expected /^all changes saved$/',
    )
  })
})
