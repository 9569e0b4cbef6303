/**
 * Idle memory as a quiet process reaches it by itself: RSS read once a second, no collection
 * forced (V8's memory reducer and the sweepers give pages back on their own), until it stayed
 * within `toleranceBytes` for `stableMs`, or `maxMs` passed. The RSS then, and how long it took.
 */
export async function settle({ stableMs = 10_000, maxMs = 60_000, toleranceBytes = 256 * 1024 } = {}) {
  const started = performance.now()
  let level = process.memoryUsage().rss
  let since = started
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const now = performance.now()
    const rss = process.memoryUsage().rss
    if (Math.abs(rss - level) > toleranceBytes) {
      level = rss
      since = now
    }
    if (now - since >= stableMs || now - started >= maxMs)
      return { rss, afterMs: now - started, stable: now - since >= stableMs }
  }
}
