/**
 * The packed packages work outside this repository: the tarballs of @e2e-col/protocol, sync, review,
 * transport, client, signal-cli and sidecar are installed into a fresh Vite app in a temporary
 * folder (no tsx there), the app type-checked against their .d.ts and built, the installed
 * `e2e-col-sidecar` bin run with plain Node against the toy daemon, and the built page opened in
 * real Chromium, where E2eColProvider syncs through that sidecar with a peer.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { preview, type PreviewServer } from 'vite'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { createMemoryStorage, E2eColProvider } from '@e2e-col/client'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DEMO_GROUP_ID, startDemoStack, type DemoStack } from '../src/index.ts'
import { appLockfile } from './app-lockfile.ts'
import { CHROMIUM, hasChromium, launchChromium } from '@e2e-col/test-browser'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const node = (script: string, args: string[], cwd: string): string =>
  execFileSync(process.execPath, [join(ROOT, script), ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })

const MAIN = `
import { E2eColProvider, type ClientStatus } from '@e2e-col/client'
import * as Y from 'yjs'

const query = new URLSearchParams(location.search)
const doc = new Y.Doc()
const provider = new E2eColProvider(query.get('sidecar') ?? '', query.get('doc') ?? '', doc)
const pending: number = provider.pending
const status: ClientStatus = provider.clientStatus
provider.on('sync', (synced: boolean) => {
  if (synced) doc.getText('text').insert(0, 'hello from an installed app; ')
})
Object.assign(window, { installed: { text: () => doc.getText('text').toString(), pending: () => provider.pending, first: { pending, status } } })
`

const PACKED = ['protocol', 'sync', 'review', 'transport', 'client', 'signal-cli', 'sidecar']

/** Runs the installed sidecar bin with plain Node and a bare environment; resolves with its URL once ready. */
function startInstalledSidecar(
  app: string,
  env: Record<string, string>,
): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [join(app, 'node_modules/.bin/e2e-col-sidecar')], {
    cwd: app,
    env: { PATH: process.env['PATH'] ?? '', E2E_COL_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const url = new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue
        const json = JSON.parse(line) as { url?: string; msg?: string }
        if (json.url !== undefined && json.msg?.includes('ready') === true) resolve(json.url.replace(/^http/, 'ws'))
      }
    })
    child.once('exit', (code, signal) =>
      reject(new Error(`the installed sidecar exited before it was ready (${code ?? signal}): ${stderr}${out}`)),
    )
  })
  url.catch(() => {})
  return { child, url }
}

/** Gives the app's better-sqlite3 (installed without its build script) the repository's native module. */
function copyNativeSqlite(app: string): void {
  const [mine, theirs] = [join(ROOT, 'node_modules/better-sqlite3'), join(app, 'node_modules/better-sqlite3')]
  const [built, installed] = [mine, theirs].map(
    (dir) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version,
  )
  if (built !== installed) throw new Error(`better-sqlite3 ${installed} installed, the repository built ${built}`)
  cpSync(join(mine, 'build'), join(theirs, 'build'), { recursive: true })
}

if (!hasChromium())
  console.warn(`installed-packages test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the packed packages in a fresh Vite app', () => {
  let app: string
  let server: PreviewServer
  let stack: DemoStack
  let browser: Browser
  let installed: ChildProcess | undefined

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'e2e-col-installed-app-'))
    const tarballs = node('node_modules/tsx/dist/cli.mjs', ['scripts/pack-packages.ts', join(app, 'tarballs')], ROOT)
      .trim()
      .split('\n')
    const byName = new Map(
      PACKED.map((name) => {
        const file = tarballs.find((t) => t.endsWith(`/e2e-col-${name}-0.1.0.tgz`))
        if (file === undefined) throw new Error(`no tarball for ${name} in ${tarballs.join(', ')}`)
        return [`@e2e-col/${name}`, file] as const
      }),
    )
    const { manifestDependencies, lockfile } = appLockfile(join(ROOT, 'package-lock.json'), byName, { yjs: '13.6.33' })
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'installed-app', private: true, type: 'module', dependencies: manifestDependencies }),
    )
    writeFileSync(join(app, 'package-lock.json'), lockfile)
    writeFileSync(
      join(app, 'index.html'),
      '<!doctype html><html><body><script type="module" src="/main.ts"></script></body></html>',
    )
    writeFileSync(join(app, 'main.ts'), MAIN)
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2022', 'DOM'],
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: false,
        },
        include: ['main.ts'],
      }),
    )
    // Our packages from their tarballs, third-party ones from the npm cache alone (`--offline`: the
    // lockfile pins the versions this repository installed, so `npm ci` here cached them all). No
    // install scripts: better-sqlite3's native module is the repository's own build (same version,
    // same machine), copied in rather than downloaded or compiled.
    execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: app,
      stdio: 'pipe',
      timeout: 180_000,
    })
    copyNativeSqlite(app)
  }, 300_000)

  afterAll(async () => {
    installed?.kill('SIGKILL')
    await browser?.close()
    await stack?.close()
    await server?.close()
    if (app !== undefined) rmSync(app, { recursive: true, force: true })
  })

  test('its code type-checks against the installed .d.ts files, and an error in it is caught', () => {
    expect(() => node('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.json'], app)).not.toThrow()
    writeFileSync(
      join(app, 'wrong.ts'),
      "import { E2eColProvider } from '@e2e-col/client'\nconst n: string = (null as unknown as E2eColProvider).pending\nexport { n }\n",
    )
    writeFileSync(
      join(app, 'tsconfig.wrong.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['wrong.ts'] }),
    )
    let output = ''
    try {
      node('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.wrong.json'], app)
    } catch (error) {
      output = String((error as { stdout?: string }).stdout)
    }
    expect(output).toMatch(/wrong\.ts.*TS2322/)
  }, 120_000)

  test('the installed sidecar bin is plain JavaScript: it runs with Node alone, no tsx in the app', () => {
    expect(existsSync(join(app, 'node_modules/tsx'))).toBe(false)
    const bin = readFileSync(join(app, 'node_modules/.bin/e2e-col-sidecar'), 'utf8')
    expect(bin.startsWith('#!/usr/bin/env node\n')).toBe(true)
    // The Node options its launchers give it ship with it (decisions/0041).
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@e2e-col/sidecar/package.json'), 'utf8')) as {
      e2eColNodeOptions?: string[]
    }
    expect(manifest.e2eColNodeOptions).toEqual(['--max-semi-space-size=1'])
    expect(existsSync(join(app, 'node_modules/@e2e-col/sidecar/src'))).toBe(false)
    // It runs one bundle (decisions/0044): its files import each other, Node's modules and the native
    // SQLite addon, nothing else.
    const folder = join(app, 'node_modules/@e2e-col/sidecar/dist/bundle')
    const files = readdirSync(folder)
    expect(files).toContain('main.js')
    const imported = files
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) =>
        [...readFileSync(join(folder, f), 'utf8').matchAll(/(?<![\w.$])(?:from|import)\s*\(?\s*"([^"]+)"/g)].map(
          (m) => m[1],
        ),
      )
    expect(imported.filter((i) => !/^(\.\/chunk-\w+\.js|node:[\w/]+|better-sqlite3)$/.test(i ?? ''))).toEqual([])
    const help = execFileSync(process.execPath, [join(app, 'node_modules/.bin/e2e-col-sidecar'), '--help'], {
      cwd: app,
      env: { PATH: process.env['PATH'] ?? '' },
      encoding: 'utf8',
    })
    expect(help).toContain('Usage: e2e-col-sidecar')
  }, 60_000)

  test('it builds with Vite and, opened in Chromium, syncs through the installed sidecar with a peer', async () => {
    node('node_modules/vite/bin/vite.js', ['build', '--logLevel', 'error'], app)
    server = await preview({ root: app, preview: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' })
    const origin = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`
    stack = await startDemoStack({
      page: false,
      sidecarPorts: [0, 0],
      sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent', E2E_COL_ALLOWED_ORIGINS: origin },
    })
    // Alice's sidecar is the installed one, run from the app's node_modules; Bob's stays in process.
    await stack.stopSidecar('alice')
    const sidecar = startInstalledSidecar(app, {
      SIGNAL_CLI_URL: stack.toy.url,
      SIGNAL_CLI_ACCOUNT: stack.number('alice'),
      E2E_COL_DOCUMENTS: `${stack.docId}=${DEMO_GROUP_ID}`,
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
      E2E_COL_LISTEN: '127.0.0.1:0',
      E2E_COL_DATA_DIR: join(app, 'alice-data'),
      E2E_COL_ALLOWED_ORIGINS: origin,
      E2E_COL_SENDS_PER_SECOND: '5',
      E2E_COL_SEND_BURST: '20',
    })
    installed = sidecar.child
    const aliceUrl = await sidecar.url
    const peerDoc = new Y.Doc()
    const peer = new E2eColProvider(stack.sidecarUrl('bob'), stack.docId, peerDoc, {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      storage: createMemoryStorage(),
      lifecycle: null,
      transport: { network: null },
    })
    try {
      browser = await launchChromium()
      const page = await browser.newPage()
      page.on('pageerror', (error) => console.error('[installed app page error]', error))
      await page.goto(`${origin}/?sidecar=${aliceUrl}&doc=${stack.docId}`)
      await page.waitForFunction(
        () => (window as { installed?: { text(): string } }).installed?.text().includes('installed app') === true,
        undefined,
        { timeout: 20_000 },
      )
      const deadline = Date.now() + 20_000
      while (!peerDoc.getText('text').toString().includes('hello from an installed app') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      expect(peerDoc.getText('text').toString()).toContain('hello from an installed app')
      await page.waitForFunction(
        () => (window as { installed?: { pending(): number } }).installed?.pending() === 0,
        undefined,
        { timeout: 20_000 },
      )
    } finally {
      peer.destroy()
      await peer.whenDestroyed
    }
  }, 120_000)
})
