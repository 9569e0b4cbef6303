import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig, type Plugin } from 'vite'
import { VitePWA } from 'vite-plugin-pwa'
import { workspaceResolve } from '../../workspace-conditions.ts'

/**
 * The folder the dev server writes its generated service worker to: outside the source tree, one
 * per server (parallel servers never share one), removed when that server closes.
 */
function devServiceWorkerFolder(): { resolve: () => string; cleanup: Plugin } {
  let folder: string | undefined
  return {
    resolve: () => (folder ??= mkdtempSync(join(tmpdir(), 'e2e-col-demo-sw-'))),
    cleanup: {
      name: 'e2e-col-remove-dev-sw-folder',
      configureServer(server) {
        server.httpServer?.once('close', () => {
          if (folder !== undefined) rmSync(folder, { recursive: true, force: true })
        })
      },
    },
  }
}

/**
 * vite-plugin-pwa's dev entry tells Vite's live-reload channel it is ready. In a page the service
 * worker serves while the page server is away that channel has no socket, and Vite logged a
 * TypeError in every such page. It now says so only once the page server answers (a HEAD, which
 * the service worker passes by: it answers GETs only).
 */
const quietDevServiceWorker: Plugin = {
  name: 'e2e-col-quiet-dev-sw',
  enforce: 'post',
  transform(code, id) {
    if (!id.includes('pwa-entry-point-loaded')) return undefined
    return code.replace(
      /import\.meta\.hot\.send\(([^)]*)\)/,
      "fetch('/', { method: 'HEAD', cache: 'no-store' }).then(() => import.meta.hot?.send($1), () => {})",
    )
  },
}

// The demo page. `npm start` runs this config in-process (see src/stack.ts).
export default defineConfig(() => {
  const swFolder = devServiceWorkerFolder()
  return {
    ...workspaceResolve,
    root: import.meta.dirname,
    clearScreen: false,
    server: { host: '127.0.0.1' },
    plugins: [
      // The app shell is kept by a Workbox service worker, so a reload with the sidecar stopped or
      // the browser offline still opens the pages (the documents themselves are in IndexedDB).
      // Network first: a running server always serves the newest page; the cache answers only
      // when it cannot.
      VitePWA({
        strategies: 'generateSW',
        registerType: 'autoUpdate',
        injectRegister: false,
        manifest: false,
        workbox: {
          globPatterns: ['**/*.{js,css,html}'],
          navigateFallback: null,
          clientsClaim: true,
          skipWaiting: true,
          runtimeCaching: [
            {
              // Same-origin GETs only: the sidecar (another origin) and Vite's live-reload socket pass by.
              urlPattern: ({ sameOrigin, request }) => sameOrigin && request.method === 'GET',
              handler: 'NetworkFirst',
              options: { cacheName: 'e2e-col-app-shell', expiration: { maxEntries: 1000 } },
            },
          ],
        },
        devOptions: { enabled: true, suppressWarnings: true, resolveTempFolder: swFolder.resolve },
      }),
      swFolder.cleanup,
      quietDevServiceWorker,
    ],
    // Pages: the plain-text editor (index.html, which sends a visit without ?doc= home), the home
    // page (home.html), the rich-text editor (rich.html) and the chat console (console.html).
    build: {
      rollupOptions: {
        input: {
          main: `${import.meta.dirname}/index.html`,
          home: `${import.meta.dirname}/home.html`,
          rich: `${import.meta.dirname}/rich.html`,
          console: `${import.meta.dirname}/console.html`,
        },
      },
    },
  }
})
