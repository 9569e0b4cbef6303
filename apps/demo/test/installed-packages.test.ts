/**
 * The packed packages work outside this repository: the tarballs of @e2e-col/protocol, sync,
 * transport and client are installed into a fresh Vite app in a temporary folder, type-checked
 * against their .d.ts, built, and the built page opened in real Chromium, where E2eColProvider
 * syncs with a sidecar on the toy daemon.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
import { startDemoStack, type DemoStack } from '../src/index.ts'
import { CHROMIUM, hasChromium, launchChromium } from './browser.ts'

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

if (!hasChromium())
  console.warn(`installed-packages test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`)

describe.skipIf(!hasChromium())('the packed packages in a fresh Vite app', () => {
  let app: string
  let server: PreviewServer
  let stack: DemoStack
  let browser: Browser

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'e2e-col-installed-app-'))
    const tarballs = node('node_modules/tsx/dist/cli.mjs', ['scripts/pack-packages.ts', join(app, 'tarballs')], ROOT)
      .trim()
      .split('\n')
    const dependency = (name: string): [string, string] => {
      const file = tarballs.find((t) => t.endsWith(`e2e-col-${name}-0.1.0.tgz`))
      if (file === undefined) throw new Error(`no tarball for ${name} in ${tarballs.join(', ')}`)
      return [`@e2e-col/${name}`, `file:${file}`]
    }
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'installed-app',
        private: true,
        type: 'module',
        dependencies: {
          ...Object.fromEntries(['protocol', 'sync', 'transport', 'client'].map(dependency)),
          yjs: '13.6.33',
        },
      }),
    )
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
    // From the npm cache where it can; the registry only for what the cache lacks.
    execFileSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
      { cwd: app, stdio: 'pipe' },
    )
  }, 240_000)

  afterAll(async () => {
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

  test('it builds with Vite and, opened in Chromium, syncs through a sidecar with a peer', async () => {
    node('node_modules/vite/bin/vite.js', ['build', '--logLevel', 'error'], app)
    server = await preview({ root: app, preview: { host: '127.0.0.1', port: 0 }, logLevel: 'silent' })
    const origin = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`
    stack = await startDemoStack({
      page: false,
      sidecarPorts: [0, 0],
      sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent', E2E_COL_ALLOWED_ORIGINS: origin },
    })
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
      await page.goto(`${origin}/?sidecar=${stack.sidecarUrl('alice')}&doc=${stack.docId}`)
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
      await peer.destroy()
    }
  }, 120_000)
})
