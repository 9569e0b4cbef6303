/**
 * The sidecar's one membership owner over the real toy HTTP: an idle sidecar serving 20 documents
 * lists its groups once per E2E_COL_MEMBERS_REFRESH_MS for the whole sidecar (not once per part,
 * nor once per document), plus the single groups a part asks for.
 */
import { createHttpSignalBackend } from '@e2e-col/signal-cli'
import { createToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, B, baseEnv, sidecar } from './harness.ts'

const DOCUMENTS = 20
const REFRESH_MS = 1000
const INTERVALS = 3

describe('group listings of an idle sidecar', () => {
  it('with 20 documents, makes at most one listGroups per interval plus the groups asked for', async () => {
    const toy = await createToySignal({
      accounts: [A, B],
      groups: Array.from({ length: DOCUMENTS }, (_, i) => ({ name: `doc ${i}`, members: [A, B] })),
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const inner = createHttpSignalBackend({ url: toy.url, account: A, timeoutMs: 5000, streamIdleMs: 60_000 })
    const calls: (string | undefined)[] = []
    // The start's own listing (the daemon checks) and, with documents fixed by E2E_COL_DOCUMENTS,
    // the library's start refresh (a group ended while the sidecar was down is found at start:
    // fixed-ended.test.ts); then one per interval.
    const target = 2 + INTERVALS
    let firstAt: number | undefined
    let reachedAt: number | undefined
    const counted = {
      ...inner,
      listGroups: (groupId?: string) => {
        calls.push(groupId)
        firstAt ??= Date.now()
        if (reachedAt === undefined && calls.filter((g) => g === undefined).length === target) reachedAt = Date.now()
        return inner.listGroups(groupId)
      },
    }
    const documents = toy.groups.map((g) => `${randomUUID()}=${g.id}`).join(',')
    const env = { ...baseEnv(toy, A, randomUUID()), E2E_COL_DOCUMENTS: documents }
    await sidecar({ ...env, E2E_COL_MEMBERS_REFRESH_MS: String(REFRESH_MS) }, { backend: counted })
    // Waits for the listings themselves, however late a busy machine runs the timer.
    await expect
      .poll(() => calls.filter((g) => g === undefined).length, { timeout: 20_000, interval: 50 })
      .toBeGreaterThanOrEqual(target)
    // The timer starts after the start's own listing and never fires early: by the time the last
    // of them was taken, no more than one listing per interval gone by since the first listing can
    // have been made (one per part or per document would be many at each interval).
    const intervalsGone = Math.floor(((reachedAt ?? Date.now()) - (firstAt ?? 0)) / REFRESH_MS)
    expect(target).toBeLessThanOrEqual(2 + intervalsGone)
    // Nobody else posted: no source was unknown, so no single group was asked for.
    expect(calls.filter((g) => g !== undefined)).toEqual([])
  }, 30_000)
})
