/** Page lifecycle: the client flushes and checkpoints when the page is hidden or unloads. */

/** Page lifecycle hooks; the client flushes and checkpoints when the page is hidden. */
export interface PageLifecycle {
  onHide(listener: () => void): () => void
}

/** `visibilitychange` (to hidden) and `pagehide` in browsers; null where there is no page (Node). */
export function browserLifecycle(): PageLifecycle | null {
  if (typeof document === 'undefined' || typeof window === 'undefined') return null
  return {
    onHide(listener) {
      const onVisibility = (): void => {
        if (document.visibilityState === 'hidden') listener()
      }
      document.addEventListener('visibilitychange', onVisibility)
      window.addEventListener('pagehide', listener)
      return () => {
        document.removeEventListener('visibilitychange', onVisibility)
        window.removeEventListener('pagehide', listener)
      }
    },
  }
}
