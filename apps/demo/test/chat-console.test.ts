/**
 * The chat console page in a real Chromium: a prompt typed on the page runs as a turn of a real
 * chat loop (an inline agent) attached to Alice's sidecar, and the reply shows on the page.
 * Requires Debian's Chromium (`apt-get install chromium`; `.ci/run` does it).
 */
import { EventEmitter, once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig as loadChatConfig, runChat, type ChatEvent } from '@e2e-col/chat'
import { chatIdForGroup } from '@e2e-col/signal-cli'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startDemoStack, type DemoStack } from '../src/index.ts'
import { CHROMIUM, hasChromium, launchChromium } from '@e2e-col/test-browser'

const ALICE = '+15555550101'
const BOB = '+15555550102'
// The agent: one line naming the prompt; `{sessionId}` makes it resumable for the loop's probe.
const AGENT = JSON.stringify([
  process.execPath,
  '-e',
  'process.stdout.write("agent says: " + process.argv[1])',
  '{prompt}',
  '{sessionId}',
])

interface ConsoleHandle {
  entries(): { who: string; text: string; state: string | undefined }[]
}
declare global {
  interface Window {
    e2eColConsole?: ConsoleHandle
  }
}

/** Waits until the page's conversation shows an entry (read through its debug handle). */
async function waitForEntry(page: Page, who: string, needle: string, state?: string): Promise<void> {
  await page.waitForFunction(
    ([w, n, s]) =>
      window.e2eColConsole?.entries().some((e) => e.who === w && e.text.includes(n) && (s === '' || e.state === s)) ===
      true,
    [who, needle, state ?? ''] as const,
    { timeout: 20_000 },
  )
}

if (!hasChromium())
  console.warn(`chat console browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the chat console page in a real browser', () => {
  let stack: DemoStack
  let browser: Browser
  let stateRoot: string
  const stop = new AbortController()
  let exit: Promise<number>
  let groupId: string

  beforeAll(async () => {
    stack = await startDemoStack({
      vitePort: 0,
      sidecarPorts: [0, 0],
      sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent', E2E_COL_CHAT_BROWSER_OPERATORS: '1', E2E_COL_CHAT_OPERATORS: BOB },
    })
    stateRoot = mkdtempSync(join(tmpdir(), 'e2e-col-console-'))
    const inv = loadChatConfig(
      [
        'chat',
        'say hello',
        '--operator',
        BOB,
        '--agent',
        'command',
        '--agent-command',
        AGENT,
        '--host',
        'demo',
        '--sidecar',
        stack.sidecarUrl('alice'),
      ],
      {
        SIGNAL_CLI_URL: stack.toy.url,
        SIGNAL_CLI_ACCOUNT: ALICE,
        XDG_STATE_HOME: stateRoot,
      },
    )
    if (inv.kind !== 'run') throw new Error('expected a run invocation')
    const loop = new EventEmitter()
    const isReady = once(loop, 'ready')
    const isAttached = once(loop, 'attached')
    exit = runChat(inv.config, {
      agentEnv: { PATH: process.env['PATH'] ?? '' },
      log: (line) => {
        if (line.includes('attached to the sidecar')) loop.emit('attached')
      },
      stop: stop.signal,
      observe: (e: ChatEvent) => {
        if (e.type === 'ready') loop.emit('ready', e.groupId)
      },
    })
    groupId = String((await isReady)[0])
    await isAttached
    browser = await launchChromium()
  })

  afterAll(async () => {
    stop.abort()
    await exit
    await browser?.close()
    await stack?.close()
    rmSync(stateRoot, { recursive: true, force: true })
  })

  test('a prompt typed on the page drives a turn and its reply and receipts show; Stop ends the chat', async () => {
    const origin = new URL(stack.link('alice')).origin
    const page = await browser.newPage()
    await page.goto(`${origin}/console.html?sidecar=${stack.sidecarUrl('alice')}&chat=${chatIdForGroup(groupId)}`)
    await page.waitForSelector('#connection[data-state="connected"]', { timeout: 20_000 })
    await page.fill('#prompt', 'hello from chromium')
    await page.click('button[type="submit"]')
    await waitForEntry(page, 'agent', 'agent says: hello from chromium')
    await waitForEntry(page, 'you', 'hello from chromium', 'done')
    expect(await page.locator('.entry.agent pre').last().textContent()).toBe('agent says: hello from chromium')

    page.on('dialog', (dialog) => void dialog.accept())
    await page.click('#stop-button')
    expect(await exit).toBe(0)
    await waitForEntry(page, 'note', 'the chat has ended')
  })
})
