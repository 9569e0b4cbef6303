/**
 * Registers the service worker that keeps the pages themselves (vite-plugin-pwa's Workbox worker,
 * configured in vite.config.ts): after one visit, a page opens again with its server or the
 * network away, and its document comes from IndexedDB.
 */
/// <reference types="vite-plugin-pwa/client" />
import { registerSW } from 'virtual:pwa-register'

export function keepPagesOffline(): void {
  if (!('serviceWorker' in navigator)) return
  registerSW({
    immediate: true,
    // A newer worker (the page server was restarted) takes over without reloading the page under
    // the person's fingers: it fetches network first, so nothing stale is served.
    onNeedReload: () => {},
    // A page that cannot register (a private window, a blocked worker) still works online.
    onRegisterError: (error: unknown) => console.warn('e2e-col: no offline pages:', error),
  })
}
