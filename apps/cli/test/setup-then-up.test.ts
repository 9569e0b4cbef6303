/**
 * From an empty state folder to a first document, the way a person does it: `e2e-col setup --link`
 * (the test plays the phone through the toy's admin route) or `--register` (with the code the
 * admin route reveals), then `e2e-col up`, then real Chromium opens the home page it prints, makes
 * a document there, types into it, and the edit reaches Signal (the toy) from the account setup
 * made. Setup itself makes no group. Ctrl-C stops all three processes.
 */
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hasChromium, launchChromium, waitForShown } from '@e2e-col/test-browser'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import type { Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startLinkPage } from '../src/qr-page.ts'
import { sidecarSettings, writeConfigFile } from '../src/sidecar-config.ts'
import { eventually, runCli, type CliRun } from './cli-process.ts'

/** The page `up` serves is Vite's first compile of the demo in a child process: give it a minute. */
const UP_PAGE_WAIT_MS = 60_000

const LINKED = '+15555550131'
const REGISTERED = '+15555550132'

const dirs: string[] = []
const toys: ToySignal[] = []
let browser: Browser | undefined

beforeAll(async () => {
  if (hasChromium()) browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
})
afterEach(async () => {
  await Promise.all(toys.splice(0).map((t) => t.close()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function toy(): Promise<ToySignal> {
  const t = await createToySignal({ faults: true })
  toys.push(t)
  return t
}

function emptyStateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-cli-'))
  dirs.push(dir)
  return join(dir, 'state')
}

async function admin(t: ToySignal, path: string, body?: unknown): Promise<any> {
  const res = await fetch(
    `${t.url}/toy/v1/${path}`,
    body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) },
  )
  const text = await res.text()
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${text}`)
  return text === '' ? undefined : JSON.parse(text)
}

/** `e2e-col setup --register` for the test's number against the daemon at `daemonUrl`, into `state`; `more` adds a code or a captcha. */
function register(daemonUrl: string, state: string, ...more: string[]): CliRun {
  return runCli(['setup', '--register', REGISTERED, ...more, '--daemon-url', daemonUrl, '--state-dir', state])
}

function readConfig(state: string): Record<string, string> {
  const path = join(state, 'config.json')
  expect(statSync(path).mode & 0o777).toBe(0o600)
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>
}

interface GroupView {
  id: string
  name: string
  members: { number: string }[]
  messageExpirationTime: number
}

/** The account's groups, as the daemon lists them. */
async function groupsOf(t: ToySignal, account: string): Promise<GroupView[]> {
  const res = await fetch(`${t.url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'listGroups', params: { account }, id: 1 }),
  })
  return ((await res.json()) as { result: GroupView[] }).result
}

/**
 * Runs `up`, opens the URL it prints in Chromium: the home page of `account`, with no documents.
 * Makes one there, types into it, and checks the edit left through `account` into the new
 * document's group, whose disappearing-messages timer follows how the account was set up.
 */
async function upAndMakeADocument(t: ToySignal, state: string, account: string, timerSeconds: number): Promise<void> {
  const up = runCli(['up', '--no-open', '--state-dir', state, '--page-port', '0', '--listen', '127.0.0.1:0'])
  const home = (await up.waitFor(/Open:\n\s+(http:\/\/127\.0\.0\.1:\d+\/\S+)/, 'the home page URL'))[1] as string
  expect(up.output()).toContain(`e2e-col is up for ${account}`)
  expect(new URL(home).pathname).toBe('/home.html')
  if (browser === undefined) {
    console.log('[cli] Chromium is not installed (apt-get install chromium): the page is checked over HTTP only')
    expect((await fetch(home)).status).toBe(200)
  } else {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(home)
    await waitForShown(page, '#whoami', new RegExp(`^\\${account}$`), UP_PAGE_WAIT_MS)
    await waitForShown(page, '#no-documents', /^No documents yet/, UP_PAGE_WAIT_MS)
    expect(await page.isVisible('#no-documents')).toBe(true)

    await page.fill('#new-document input[name=title]', 'Setup notes')
    await page.click('#new-document button[type=submit]')
    await waitForShown(page, 'li[data-doc="Setup notes"] .people-text', /^only you$/, UP_PAGE_WAIT_MS)
    expect(await page.isVisible('#problem')).toBe(false)
    const group = await eventually("the new document's group on the daemon", async () =>
      (await groupsOf(t, account)).find((g) => g.name === 'Setup notes'),
    )
    expect(group.members.map((m) => m.number)).toEqual([account])
    expect(group.messageExpirationTime).toBe(timerSeconds)

    await page.click('li[data-doc="Setup notes"] a.title')
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'connected', undefined, {
      timeout: 60_000,
    })
    await page.locator('.cm-content').click()
    await page.keyboard.type('typed after e2e-col setup')
    await page.waitForFunction(
      () => document.querySelector('#pending')?.textContent === 'all changes saved',
      undefined,
      { timeout: 60_000 },
    )
    await context.close()
    await eventually(
      "a send from the set-up account to the new document's group",
      async () => t.sends().find((s) => s.account === account && s.groupId === group.id) ?? undefined,
      60_000,
    )
  }
  const pageOrigin = new URL(home).origin
  up.child.kill('SIGINT')
  expect(await up.exited).toBe(0)
  expect(up.output()).toContain('SIGINT: stopping the sidecar, the page and the daemon')
  // Everything it started is gone: the page no longer answers.
  await expect(fetch(pageOrigin)).rejects.toThrow()
}

describe('e2e-col setup, then e2e-col up', () => {
  it('links through a scanned QR code from an empty state folder, then serves the page for the linked account', async () => {
    const t = await toy()
    const state = emptyStateDir()
    const setup = runCli([
      'setup',
      '--link',
      '--daemon-url',
      t.url,
      '--state-dir',
      state,
      '--no-page',
      '--device-name',
      'e2e-col test',
    ])
    const uri = await eventually(
      'a device link waiting for a scan',
      async () => ((await admin(t, 'provisioning/links')) as { deviceLinkUri: string }[])[0]?.deviceLinkUri,
    )
    await setup.waitFor(/Waiting for the scan/, 'the countdown')
    // The terminal shows the code (half-block QR), the link itself and what to tap.
    expect(setup.output()).toContain(uri)
    expect(setup.output()).toContain('Linked devices')
    expect(setup.output()).toMatch(/[▀▄█]{8}/)
    expect(existsSync(join(state, 'config.json'))).toBe(false)
    await admin(t, 'provisioning/scan', { deviceLinkUri: uri, number: LINKED })
    expect(await setup.exited).toBe(0)
    expect(setup.output()).toContain(`Next: npx e2e-col up --state-dir "${state}"`)
    const config = readConfig(state)
    expect(config).toMatchObject({
      SIGNAL_CLI_URL: t.url,
      SIGNAL_CLI_ACCOUNT: LINKED,
      E2E_COL_SETUP: 'linked-device',
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
      E2E_COL_DATA_DIR: join(state, 'sidecar'),
    })
    // No document yet, so no group a phone would show: documents are made on the home page.
    expect(config).not.toHaveProperty('E2E_COL_DOCUMENTS')
    expect(await groupsOf(t, LINKED)).toEqual([])
    // No temporary file is left next to it.
    expect(readdirSync(state).filter((f) => f.endsWith('.tmp'))).toEqual([])
    await upAndMakeADocument(t, state, LINKED, 86_400)
  }, 240_000)

  it('registers a number of its own in two steps (code sent, then --code), then serves the page for it', async () => {
    const t = await toy()
    const state = emptyStateDir()
    const first = register(t.url, state)
    expect(await first.exited).toBe(0)
    expect(first.output()).toContain(`Signal is sending a code to ${REGISTERED} by SMS`)
    // The next step is printed whole: the same daemon and state folder, the code to fill in.
    const next = /Next: npx e2e-col (.+) \(add --pin PIN/.exec(first.output())?.[1] ?? ''
    expect(next).toBe(`setup --register ${REGISTERED} --code CODE --daemon-url ${t.url} --state-dir "${state}"`)
    // Nothing is configured until the number is verified.
    expect(existsSync(join(state, 'config.json'))).toBe(false)
    const codes = (await admin(t, 'registration/codes')) as { number: string; code: string }[]
    const code = codes.find((c) => c.number === REGISTERED)?.code as string

    const wrong = register(t.url, state, '--code', code === '000000' ? '111111' : '000000')
    expect(await wrong.exited).toBe(8)
    expect(wrong.output()).toContain('Signal did not accept the code')
    expect(existsSync(join(state, 'config.json'))).toBe(false)

    // Run as printed, with the code as the SMS shows it.
    const words = (next.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? []).map((w) =>
      w.startsWith('"') ? (JSON.parse(w) as string) : w,
    )
    const second = runCli(words.map((w) => (w === 'CODE' ? `${code.slice(0, 3)}-${code.slice(3)}` : w)))
    expect(await second.exited).toBe(0)
    expect(second.output()).toContain(`Registered: ${REGISTERED}`)
    expect(readConfig(state)).toMatchObject({ SIGNAL_CLI_ACCOUNT: REGISTERED, E2E_COL_SETUP: 'dedicated-number' })
    expect(await groupsOf(t, REGISTERED)).toEqual([])
    // A number of its own: no phone to spare, so its documents keep their messages.
    await upAndMakeADocument(t, state, REGISTERED, 0)
  }, 240_000)
})

describe('e2e-col setup failures', () => {
  it('says Signal is unreachable (exit 6) when the daemon cannot reach it, and writes no config', async () => {
    const t = await createToySignal({ faults: true, offline: true })
    toys.push(t)
    const state = emptyStateDir()
    const run = runCli(['setup', '--link', '--daemon-url', t.url, '--state-dir', state, '--no-page'])
    expect(await run.exited).toBe(6)
    expect(run.output()).toMatch(
      /Signal is unreachable: signal-cli could not connect to Signal's servers \(Link request error: Connection closed!\)/,
    )
    expect(run.output()).toContain("what to do: check this machine's network connection")
    expect(readdirSync(state)).toEqual([])
  }, 60_000)

  it('asks for a captcha with where to get it and how to paste it, without a terminal', async () => {
    const t = await toy()
    await admin(t, 'registration/captcha', { all: true })
    const state = emptyStateDir()
    const run = register(t.url, state)
    expect(await run.exited).toBe(8)
    expect(run.output()).toContain('https://signalcaptchas.org/registration/generate.html')
    expect(run.output()).toContain("--captcha 'signalcaptcha://")
    const retry = register(t.url, state, '--captcha', 'signalcaptcha://signal-hcaptcha.test.registration.token')
    expect(await retry.exited).toBe(0)
    expect(retry.output()).toContain('Signal is sending a code')
  }, 60_000)

  it('stops everything and names the way out when the sidecar cannot listen (exit 10)', async () => {
    // Set up already (as the register test above does it): the daemon holds the number, config.json names it.
    const t = await createToySignal({ faults: true, accounts: [REGISTERED] })
    toys.push(t)
    const state = emptyStateDir()
    mkdirSync(state, { recursive: true, mode: 0o700 })
    writeConfigFile(
      join(state, 'config.json'),
      sidecarSettings({
        daemonUrl: t.url,
        account: REGISTERED,
        setup: 'dedicated-number',
        dataDir: join(state, 'sidecar'),
      }),
    )
    // Something else holds the sidecar's address.
    const { createServer } = await import('node:net')
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    const pagePort = await new Promise<number>((resolve) => {
      const probe = createServer()
      probe.listen(0, '127.0.0.1', () => {
        const free = (probe.address() as { port: number }).port
        probe.close(() => resolve(free))
      })
    })
    try {
      const up = runCli([
        'up',
        '--no-open',
        '--state-dir',
        state,
        '--page-port',
        String(pagePort),
        '--listen',
        `127.0.0.1:${port}`,
      ])
      expect(await up.exited).toBe(10)
      expect(up.output()).toContain('the sidecar stopped (exit 8)')
      expect(up.output()).toContain('pass --listen 127.0.0.1:PORT')
      // The page it had started is gone again.
      await expect(fetch(`http://127.0.0.1:${pagePort}/`)).rejects.toThrow()
    } finally {
      blocker.close()
    }
  }, 120_000)

  it('refuses to start up before setup, naming the command to run', async () => {
    const state = emptyStateDir()
    const run = runCli(['up', '--no-open', '--state-dir', state])
    expect(await run.exited).toBe(9)
    expect(run.output()).toContain('not set up yet')
    expect(run.output()).toContain('npx e2e-col setup --link')
  }, 60_000)
})

if (!hasChromium()) console.warn('the link page in Chromium skipped: no Chromium (apt-get install chromium)')
describe.skipIf(!hasChromium())(
  'the link page in Chromium (skipped without Chromium: apt-get install chromium)',
  () => {
    it('is not shown inside another page: the frame of the QR page is blocked, a plain page in the next frame loads', async () => {
      const link = await startLinkPage()
      const plain = createHttpServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>plain</p>'),
      )
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
      const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`
      // Another origin (localhost, not 127.0.0.1) that frames both.
      const framing = createHttpServer((_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<iframe name="qr" src="${link.url}"></iframe><iframe name="plain" src="${plainUrl}"></iframe>`),
      )
      await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve))
      const context = await (browser as Browser).newContext()
      try {
        const page = await context.newPage()
        await page.goto(`http://localhost:${(framing.address() as AddressInfo).port}/`, { waitUntil: 'load' })
        // A busy machine may report a frame's final address a little after the page's load.
        await expect.poll(() => page.frame('plain')?.url(), { timeout: 10_000 }).toBe(plainUrl)
        await expect.poll(() => page.frame('qr')?.url(), { timeout: 10_000 }).toBe('chrome-error://chromewebdata/')
        // Opened on its own, the page shows.
        await page.goto(link.url, { waitUntil: 'load' })
        expect(await page.textContent('h1')).toBe('Link e2e-col to your Signal')
      } finally {
        await context.close()
        plain.close()
        plain.closeAllConnections()
        framing.close()
        framing.closeAllConnections()
        await link.close()
      }
    }, 60_000)
  },
)
