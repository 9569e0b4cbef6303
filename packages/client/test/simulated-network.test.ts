/**
 * Seeded fuzz after Yjs's TestConnector: three clients edit at random while the simulated relay
 * closes connections ambiguously (1011, before or after forwarding), duplicates and reorders.
 * Afterwards the faults stop and every client must converge with an empty outbox.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { client, freshPrefix, statusWhere, textsBecome } from './client-harness.ts'
import { seededRandom } from '@e2e-col/sync/testing'
import { NO_FAULTS, startRelay } from './sim-relay.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (let c = cleanups.pop(); c !== undefined; c = cleanups.pop()) await c()
})

const SEEDS = (process.env['E2E_COL_FUZZ_SEEDS'] ?? '1,2,3,4,5').split(',').map(Number)

describe('simulated network', () => {
  test.each(SEEDS)('seed %i: clients converge and every outbox drains despite drops, duplicates and reordering', async (seed) => {
    const random = seededRandom(seed)
    const relay = await startRelay(random)
    cleanups.push(() => relay.close())
    relay.faults = { closeBeforeRate: 0.08, closeAfterRate: 0.08, duplicateRate: 0.2, maxDelayMs: 15 }
    const clients = Array.from({ length: 3 }, () => client(relay.url, freshPrefix(), { random }))
    for (const c of clients) cleanups.push(() => c.conn.close())
    await Promise.all(clients.map((c) => c.conn.ready))

    for (let step = 0; step < 60; step++) {
      const c = clients[Math.floor(random() * clients.length)]
      if (c === undefined) continue
      const length = c.text.length
      if (length > 0 && random() < 0.25) c.text.delete(Math.floor(random() * length), 1)
      else c.text.insert(Math.floor(random() * (length + 1)), String.fromCharCode(97 + Math.floor(random() * 26)))
      // Let the event loop run so sends, acks, closes and reconnects interleave with the edits.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 4)))
    }

    relay.faults = { ...NO_FAULTS }
    // Lost acks are only replayed on a reconnect: force one, as a restarted sidecar would.
    relay.closeAll(1011, 'quiesce')
    await Promise.all(clients.map((c) => statusWhere(c.conn, (s) => s.pending === 0 && s.connection === 'connected')))
    await textsBecome(
      clients.map((c) => c.doc),
      () => clients[0]?.text.toString(),
    )
    const texts = clients.map((c) => c.text.toString())
    expect(new Set(texts).size).toBe(1)
    expect(texts[0]?.length).toBeGreaterThan(10)
    // The faults really fired (the quiesce close is not counted).
    expect(relay.stats.ambiguousCloses).toBeGreaterThan(0)
  })
})
