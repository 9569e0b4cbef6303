import { randomUUID } from 'node:crypto'
import { createToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { loadConfig, startSidecar } from '../src/index.ts'
import { InspectError, inspectDocument } from '../src/cli/inspect.ts'
import { A, B, baseEnv, metricValue, poll, sidecar, startToy, tempDataDir } from './harness.ts'
import { sentEnvelopes } from './signal-log.ts'
import { YBrowser } from './ybrowser.ts'

const C = '+33600000003'

/** Items the store holds of the document: 0 while it holds nothing (inspect refuses a document it lacks). */
function storedItems(dataDir: string, docId: string): number {
  try {
    return inspectDocument(dataDir, docId).stateVector.items
  } catch (error) {
    if (error instanceof InspectError) return 0
    throw error
  }
}

/** Sum of the clocks of a document's state vector: equal sums mean equal states here. */
function items(doc: Y.Doc): number {
  return [...Y.decodeStateVector(Y.encodeStateVector(doc)).values()].reduce((n, c) => n + c, 0)
}

const outcome = async (s: { url: string }, o: string) =>
  metricValue(s.url, `e2e_col_replica_sync_total{outcome="${o}"}`)

describe('the sidecar as a durable replica', () => {
  it("opens Bob's page with everything Alice wrote while it was closed, at once and with no Signal traffic", async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const bDir = tempDataDir()
    const [a, b] = await Promise.all([
      sidecar(baseEnv(toy, A, docId)),
      sidecar(baseEnv(toy, B, docId, { E2E_COL_DATA_DIR: bDir })),
    ])
    const alice = new YBrowser(docId)
    await alice.connect(a.url)
    for (let i = 0; i < 30; i++) alice.edit(`alice-${i};`)
    await alice.until(() => alice.outbox.size === 0)
    alice.close()
    // No browser of Bob's is open: only his sidecar's store can hold Alice's text.
    await poll(() => storedItems(bDir, docId) === items(alice.doc), "Alice's text in Bob's store")

    const before = toy.sends().length
    const bob = new YBrowser(docId)
    await bob.connect(b.url)
    await bob.until(() => bob.text === alice.text)
    expect(bob.text).toContain('alice-29;')
    // One answer from Bob's own sidecar carried it all.
    expect(bob.received.filter((e) => e.kind === 'update')).toHaveLength(0)
    expect(bob.received.filter((e) => e.kind === 'sync-response')).toHaveLength(1)
    // A probe through the same queue: once it is acknowledged, anything queued before it went out too.
    const probe = bob.sendRaw('health', new Uint8Array([1]))
    await bob.until(() => bob.acked.has(probe.messageId))
    expect(sentEnvelopes(toy, before).map((s) => s.envelope.messageId)).toEqual([probe.messageId])
  })

  it('catches Bob up through a sync-request answered once by a running sidecar, the other answer suppressed', async () => {
    // Which of Alice's and Carol's sidecars answers is the group's answer rule (a hash of the
    // request): the first-ranked one answers, the other waits a fallback bound and sees it.
    // The daemon keeps one message for a closed stream: Bob's sidecar misses most of Alice's edits.
    const toy = await createToySignal({
      accounts: [A, B, C],
      groups: [{ name: 'doc', members: [A, B, C] }],
      keepAliveMs: 1000,
      maxQueuedPerAccount: 1,
    })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const [bDir, cDir] = [tempDataDir(), tempDataDir()]
    const [a, c] = await Promise.all([
      // Their quiet-period requests (20 × 600 ms after Alice's last edit) come after the test's end.
      sidecar(baseEnv(toy, A, docId, { E2E_COL_SYNC_DELAY_MIN_MS: '10', E2E_COL_SYNC_DELAY_MAX_MS: '600' })),
      sidecar(
        baseEnv(toy, C, docId, {
          E2E_COL_DATA_DIR: cDir,
          E2E_COL_SYNC_DELAY_MIN_MS: '10',
          E2E_COL_SYNC_DELAY_MAX_MS: '600',
        }),
      ),
    ])
    const bobFirst = await startSidecar(loadConfig(baseEnv(toy, B, docId, { E2E_COL_DATA_DIR: bDir })))
    await bobFirst.close()

    const alice = new YBrowser(docId)
    await alice.connect(a.url)
    for (let i = 0; i < 8; i++) {
      alice.edit(`alice-${i};`)
      await alice.until(() => alice.outbox.size === 0)
    }
    alice.close()
    await poll(() => storedItems(cDir, docId) === items(alice.doc), "Alice's text in Carol's store")

    const before = toy.sends().length
    const b = await sidecar(baseEnv(toy, B, docId, { E2E_COL_DATA_DIR: bDir, E2E_COL_SYNC_ON_START: '1' }))
    const bob = new YBrowser(docId)
    await bob.connect(b.url)
    await bob.until(() => bob.text === alice.text)
    expect(bob.text).toContain('alice-0;')
    await poll(
      async () => (await outcome(a, 'suppressed')) + (await outcome(c, 'suppressed')) >= 1,
      'the suppressed answer',
    )

    const sent = sentEnvelopes(toy, before)
    expect(new Set(sent.filter((s) => s.envelope.kind === 'sync-request').map((s) => s.account))).toEqual(new Set([B]))
    const answers = sent.filter((s) => s.envelope.kind === 'sync-response').map((s) => s.account)
    expect(answers).toHaveLength(1)
    expect([A, C]).toContain(answers[0])
    expect((await outcome(a, 'answered')) + (await outcome(c, 'answered'))).toBe(1)
  })
})
