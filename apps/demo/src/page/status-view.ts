/**
 * The editor pages' status line: the connection pill and how far the changes have got, in words;
 * and, while the sidecar is out of reach, what to do about it.
 */
import type { ClientStatus } from '@e2e-col/client'
import { element, setTextWithCode } from '../start-up.ts'
import { adviceText, connectionText, statusText } from './status-text.ts'

/**
 * Shows `status` in `#status` and `#pending`; `waiting` (some change not yet sent to the group) and
 * `weakest` (the weakest state of any change) go into data attributes for the page's styles.
 */
export function showStatus(
  status: ClientStatus,
  delivery: { readonly waiting: boolean; readonly weakest: string },
): void {
  const pill = element('status')
  pill.dataset['state'] = status.connection
  pill.textContent = connectionText(status.connection)
  const pending = element('pending')
  pending.textContent = statusText(status, (ms) =>
    new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
  )
  pending.dataset['waiting'] = String(delivery.waiting)
  pending.dataset['weakest'] = delivery.weakest
  lastConnection = status.connection
  watchBrowserOnline()
  showAdvice()
}

let lastConnection: ClientStatus['connection'] | undefined
let watching = false

/**
 * The advice depends on the browser being online as well as on the connection, and the browser's
 * `online`/`offline` events can come after the connection's last change (a page reloaded offline
 * learns it only once the new document's network state is settled): each event redraws it.
 */
function watchBrowserOnline(): void {
  if (watching) return
  watching = true
  addEventListener('online', showAdvice)
  addEventListener('offline', showAdvice)
}

// While the sidecar is out of reach, the advice is looked at again this often.
const RECHECK_MS = 1000
let recheck: ReturnType<typeof setTimeout> | undefined
// Whether this page's own server answered the last probe (see `probePageServer`).
let pageServerAnswers = true

/**
 * A page reloaded offline from the service worker can read `navigator.onLine` as true and never
 * hear an `offline` event (Chromium does so on a busy machine). So while the sidecar is out of
 * reach the page asks its own server too: a HEAD request, which the service worker's routes (GETs
 * only) let pass to the network. Any answer, even an error status, means the network is there.
 */
async function probePageServer(): Promise<void> {
  try {
    await fetch(location.pathname, { method: 'HEAD', cache: 'no-store' })
    pageServerAnswers = true
  } catch {
    pageServerAnswers = false
  }
}

function recheckLater(): void {
  if (lastConnection === 'connected' || recheck !== undefined) return
  recheck = setTimeout(() => {
    void probePageServer().then(() => {
      recheck = undefined
      showAdvice()
    })
  }, RECHECK_MS)
}

function showAdvice(): void {
  if (lastConnection === undefined) return
  if (lastConnection === 'connected') pageServerAnswers = true
  recheckLater()
  const advice = adviceText(lastConnection, navigator.onLine && pageServerAnswers)
  if (advice === undefined) return
  const box = element('advice')
  setTextWithCode(box, advice ?? '')
  box.hidden = advice === null
}
