import { encodeHealth } from '@e2e-col/protocol'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAuthorBook, type AuthorRow } from '../authorship/author-book.ts'
import { writtenAt } from '../authorship/updates-fixture.ts'
import { captureLogs } from '../ops/log-fixture.ts'
import { createMetrics } from '../ops/metrics.ts'
import { createAuthorGate } from './author-gate.ts'

const SELF = { number: '+15550000001' }
const BOB = { number: '+15550000002' }
const CAROL = { number: '+15550000003' }

const written = (clientId: number, text: string, clock = 0): Uint8Array => writtenAt(clientId, clock, text)

function gate() {
  vi.useFakeTimers()
  const rows: AuthorRow[] = []
  const announced: number[][] = []
  const metrics = createMetrics()
  const logs = captureLogs('warn')
  const g = createAuthorGate({
    docId: 'doc',
    book: createAuthorBook({
      self: SELF,
      rows: { load: () => rows, put: (r) => void rows.push(r), remove: () => {}, batch: (fn) => fn() },
      maxPerAccount: 16,
      maxEntries: 64,
    }),
    announce: (ids) => void announced.push([...ids]),
    announceDelayMs: 1000,
    timers: {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h as number),
    },
    storing: (fn) => fn(),
    metrics,
    logger: logs.logger,
  })
  const dropped = async (reason: string): Promise<number> =>
    (await metrics.receivedDropped.get()).values.find((v) => v.labels['reason'] === reason)?.value ?? 0
  return { g, announced, logs, dropped }
}

afterEach(() => {
  vi.useRealTimers()
})

describe("a document's author gate", () => {
  it('announces a new client id at once (beside its edit) and those of the next second together, each once', () => {
    const { g, announced } = gate()
    g.fromPage(written(1, 'a'))
    expect(announced).toEqual([[1]])
    g.fromPage(written(2, 'b'))
    g.fromPage(written(3, 'c'))
    g.fromPage(written(1, 'again', 1))
    expect(announced).toEqual([[1]])
    vi.advanceTimersByTime(1000)
    expect(announced).toEqual([[1], [2, 3]])
    g.fromPage(written(2, 'more', 1))
    vi.advanceTimersByTime(5000)
    expect(announced).toEqual([[1], [2, 3]])
    g.fromPage(written(4, 'd'))
    expect(announced).toEqual([[1], [2, 3], [4]])
  })

  it('drops a forged update, counts each, and logs once per member', async () => {
    const { g, logs, dropped } = gate()
    g.fromPage(written(1, 'mine'))
    expect(g.admit('update', written(1, 'forged', 10), CAROL)).toBe(false)
    expect(g.admit('update', written(1, 'squat', 4), CAROL)).toBe(false)
    expect(g.admit('update', written(3, 'carol'), CAROL)).toBe(true)
    expect(await dropped('forged-author')).toBe(2)
    expect(logs.lines.filter((l) => /another account's client id/.test(l.msg))).toHaveLength(1)
  })

  it('takes relayed content, marked as relayed, and a later announcement by its author binds it', () => {
    const { g } = gate()
    expect(g.admit('sync-response', written(7, 'bob, relayed'), CAROL)).toBe(true)
    expect(g.authors()).toEqual([{ clientId: 7, relayedBy: CAROL }])
    g.health(BOB, encodeHealth({ authors: [7] }))
    expect(g.authors()).toEqual([{ clientId: 7, author: BOB }])
  })

  it("counts an announcement claiming this account's client id, and keeps the binding", async () => {
    const { g, dropped } = gate()
    g.fromPage(written(1, 'mine'))
    g.health(CAROL, encodeHealth({ authors: [1] }))
    expect(await dropped('author-claim-refused')).toBe(1)
    expect(g.authors()).toEqual([{ clientId: 1, author: SELF }])
  })
})
