/** Page lifecycle: the client flushes and checkpoints when the page is hidden, and withdraws its presence when the page is left. */

/** Page lifecycle hooks; the client flushes and checkpoints when the page is hidden. */
export interface PageLifecycle {
  onHide(listener: () => void): () => void
  /**
   * The page is being left (reload, close, navigation: `pagehide`), and `back` when it returns from
   * the back-forward cache (`pageshow` with `persisted`). Optional: without it, presence only ends
   * when the sidecar sees the socket close.
   */
  onLeave?(leave: () => void, back: () => void): () => void
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
    onLeave(leave, back) {
      const onShow = (event: PageTransitionEvent): void => {
        if (event.persisted) back()
      }
      window.addEventListener('pagehide', leave)
      window.addEventListener('pageshow', onShow)
      return () => {
        window.removeEventListener('pagehide', leave)
        window.removeEventListener('pageshow', onShow)
      }
    },
  }
}
