/**
 * `e2e-col up` stopped the ways a person or a service manager stops it (Ctrl-C, SIGTERM, SIGKILL),
 * right after a document was made on the home page and an edit in its editor was acknowledged
 * ("all changes saved"). Then `e2e-col up` again on the same state folder: it starts, and its
 * sidecar serves every document made before with every acknowledged edit, read from its store
 * (the page that typed them is gone). The managed daemon is the toy behind a stand-in signal-cli
 * launcher, real Chromium opens the page `up` serves.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hasChromium, launchChromium, waitForShown } from '@e2e-col/test-browser'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sidecarSettings, writeConfigFile } from '../src/sidecar-config.ts'
import { runCli, type CliRun } from './cli-process.ts'

const LAUNCHER = fileURLToPath(new URL('./fake-signal-cli-toy.mjs', import.meta.url))
const ACCOUNT = '+15555550161'
/** The page is Vite's compile of the demo in a child process: a busy machine gets a minute. */
const PAGE_WAIT_MS = 60_000
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGKILL']

function fakeJdk(root: string): string {
  const home = join(root, 'jdk-21')
  mkdirSync(join(home, 'bin'), { recursive: true })
  writeFileSync(join(home, 'bin', 'java'), `#!/bin/sh\necho 'openjdk version "21.0.4" 2024-07-16' >&2\n`)
  chmodSync(join(home, 'bin', 'java'), 0o755)
  return home
}

/**
 * Processes whose command line names `pattern` (the state folder names every child of one `up`),
 * each as `pid state command` so a failure shows what was left.
 */
function leftovers(pattern: string): string[] {
  let pids: string[]
  try {
    pids = execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n')
  } catch {
    return []
  }
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-p', pids.join(',')], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '')
  } catch {
    return [] // gone between the two reads
  }
}

/** A state folder as `e2e-col setup --register` leaves it, the daemon's account in its folder. */
function setUpState(root: string): string {
  const state = join(root, 'state')
  mkdirSync(join(state, 'signal-cli'), { recursive: true, mode: 0o700 })
  writeFileSync(join(state, 'signal-cli', 'toy.json'), JSON.stringify({ accounts: [ACCOUNT], faults: true }))
  writeConfigFile(
    join(state, 'config.json'),
    sidecarSettings({
      daemonUrl: 'http://127.0.0.1:9',
      account: ACCOUNT,
      setup: 'dedicated-number',
      dataDir: join(state, 'sidecar'),
    }),
  )
  return state
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url)
  const text = await res.text()
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${text}`)
  return JSON.parse(text) as unknown
}

async function answers(origin: string): Promise<boolean> {
  try {
    await (await fetch(origin)).body?.cancel()
    return true
  } catch {
    return false
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/** Title → text of every listed document, as the sidecar's store has them (no page connected). */
async function storedDocuments(sidecar: string): Promise<Record<string, string>> {
  const list = await getJson(`${sidecar}/v1/docs`)
  const docs = isRecord(list) && Array.isArray(list['documents']) ? list['documents'] : []
  const out: Record<string, string> = {}
  for (const d of docs) {
    if (!isRecord(d) || typeof d['docId'] !== 'string' || typeof d['title'] !== 'string')
      throw new Error(`not a listed document: ${JSON.stringify(d)}`)
    const read = await getJson(`${sidecar}/v1/docs/${d['docId']}/text`)
    out[d['title']] = isRecord(read) && typeof read['text'] === 'string' ? read['text'] : `(no text: ${String(read)})`
  }
  return out
}

/** `up` on `state`; resolves with it, its home page URL and its sidecar's HTTP base. */
async function up(state: string, env: Record<string, string>): Promise<{ run: CliRun; home: string; sidecar: string }> {
  const run = runCli(['up', '--no-open', '--state-dir', state, '--page-port', '0', '--listen', '127.0.0.1:0'], env)
  const home = (await run.waitFor(/Open:\n\s+(http:\/\/127\.0\.0\.1:\d+\/\S+)/, 'the home page URL'))[1] as string
  const sidecar = (new URL(home).searchParams.get('sidecar') ?? '').replace(/^ws/, 'http')
  return { run, home, sidecar }
}

/** On the home page: a new document `title`, opened, `typed` into it, acknowledged by the sidecar. */
async function makeAndType(browser: Browser, home: string, title: string, typed: string): Promise<void> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(home)
    await waitForShown(page, '#whoami', new RegExp(`^\\${ACCOUNT}$`), PAGE_WAIT_MS)
    await page.fill('#new-document input[name=title]', title)
    await page.click('#new-document button[type=submit]')
    await waitForShown(page, `li[data-doc="${title}"] .people-text`, /^only you$/, PAGE_WAIT_MS)
    await page.click(`li[data-doc="${title}"] a.title`)
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'connected', undefined, {
      timeout: PAGE_WAIT_MS,
    })
    await page.locator('.cm-content').click()
    await page.keyboard.type(typed)
    // The sidecar's ack: the edit is in its store.
    await page.waitForFunction(
      () => document.querySelector('#pending')?.textContent === 'all changes saved',
      undefined,
      { timeout: PAGE_WAIT_MS },
    )
  } finally {
    // The page's own copy (IndexedDB) goes with its context: only the sidecar's store is left.
    await context.close()
  }
}

if (!hasChromium()) console.warn('e2e-col up kill cycles skipped: no Chromium (apt-get install chromium)')
describe.skipIf(!hasChromium())('e2e-col up stopped right after an acknowledged edit (needs Chromium)', () => {
  let browser: Browser | undefined
  const root = mkdtempSync(join(tmpdir(), 'e2e-col-up-kill-'))
  beforeAll(async () => {
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it(`starts again and serves every document and edit after ${SIGNALS.join(', ')}`, async () => {
    const state = setUpState(root)
    const env = { JAVA_HOME: fakeJdk(root), SIGNAL_CLI_PATH: LAUNCHER }
    const made: Record<string, string> = {}
    for (const [cycle, signal] of SIGNALS.entries()) {
      const started = await up(state, env)
      expect(await storedDocuments(started.sidecar)).toEqual(made)
      const title = `Cycle ${cycle} (${signal})`
      const typed = `typed just before ${signal}`
      await makeAndType(browser as Browser, started.home, title, typed)
      made[title] = typed
      // As `kill` or a service manager sends it; a terminal's Ctrl-C reaches `up` alone too (each
      // child runs in a process group of its own).
      started.run.child.kill(signal)
      await started.run.exited
      // Nothing it started is left: the page and the sidecar stop answering (after a SIGKILL, once
      // the kernel has closed its pipes to their watchers).
      for (const origin of [new URL(started.home).origin, started.sidecar])
        await expect.poll(() => answers(origin), { timeout: 30_000, interval: 100 }).toBe(false)
      // Nor any process of it, the daemon's included (the next `up` must not find the old daemon's).
      // A group is SIGKILLed once its leader is gone, and a kernel on a busy machine takes a moment
      // to end what it was sent; a process still there after the orphan grace (10 s) was never stopped.
      await expect.poll(() => leftovers(state), { timeout: 30_000, interval: 100 }).toEqual([])
    }
    const last = await up(state, env)
    expect(await storedDocuments(last.sidecar)).toEqual(made)
    last.run.child.kill('SIGINT')
    expect(await last.run.exited).toBe(0)
    await expect.poll(() => leftovers(state), { timeout: 30_000, interval: 100 }).toEqual([])
  }, 300_000)
})
