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
    const counted = {
      ...inner,
      listGroups: (groupId?: string) => {
        calls.push(groupId)
        return inner.listGroups(groupId)
      },
    }
    const documents = toy.groups.map((g) => `${randomUUID()}=${g.id}`).join(',')
    const env = { ...baseEnv(toy, A, randomUUID()), E2E_COL_DOCUMENTS: documents }
    const started = Date.now()
    await sidecar({ ...env, E2E_COL_MEMBERS_REFRESH_MS: String(REFRESH_MS) }, { backend: counted })
    await new Promise((resolve) => setTimeout(resolve, INTERVALS * REFRESH_MS + REFRESH_MS / 2))
    const elapsed = Date.now() - started
    const whole = calls.filter((g) => g === undefined).length
    const asked = calls.length - whole
    // The start's own listing (the daemon checks), then one per interval gone by; with documents
    // fixed by E2E_COL_DOCUMENTS, the library's start refresh lists once more (a group ended while
    // the sidecar was down is found at start: fixed-ended.test.ts).
    expect(whole).toBeGreaterThanOrEqual(1 + INTERVALS)
    expect(whole).toBeLessThanOrEqual(2 + Math.floor(elapsed / REFRESH_MS))
    // Nobody else posted: no source was unknown, so no single group was asked for.
    expect(asked).toBe(0)
  }, 30_000)
})
