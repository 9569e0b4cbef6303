import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { inspectDocument } from '../src/cli/inspect.ts'
import { A, B, baseEnv, metricValue, poll, sidecar, startToy, tempDataDir } from './harness.ts'
import { spawnSidecar } from './child-sidecar.ts'
import { sentEnvelopes } from './signal-log.ts'
import { YBrowser } from './ybrowser.ts'

const EDITS = 40

function mulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('restart safety: SIGKILL of a sidecar in the middle of sends and receives', () => {
  for (const seed of [1, 2, 3]) {
    it(
      `seed ${seed}: converges after restart, sends no message id twice, loses nothing acknowledged`,
      { timeout: 40_000 },
      async () => {
        const rnd = mulberry32(seed)
        const toy = await startToy()
        const docId = randomUUID()
        const aDir = tempDataDir()
        // Long bodies: no chunking, so every message id on Signal belongs to one body.
        const bodies = { E2E_COL_SIGNAL_BODY_MAX_BYTES: '60000', E2E_COL_ALLOW_LONG_BODIES: '1' }
        const aEnv = baseEnv(toy, A, docId, { ...bodies, E2E_COL_DATA_DIR: aDir, E2E_COL_SYNC_ON_START: '1' })
        const b = await sidecar(baseEnv(toy, B, docId, bodies))
        const first = spawnSidecar(aEnv)
        const alice = new YBrowser(docId)
        const bob = new YBrowser(docId)
        await Promise.all([first.ready.then((url) => alice.connect(url)), bob.connect(b.url)])

        const killAt = 5 + Math.floor(rnd() * (EDITS - 10))
        let ackedAtKill = new Set<string>()
        for (let i = 0; i < EDITS; i++) {
          alice.edit(`a${i};`)
          bob.edit(`b${i};`)
          if (i === killAt) {
            first.child.kill('SIGKILL')
            ackedAtKill = new Set(alice.acked)
          }
          // Jitter shapes the interleaving of sends and receives; it waits for nothing.
          await new Promise((r) => setTimeout(r, rnd() * 6))
        }
        expect((await first.exited).signal).toBe('SIGKILL')

        const second = spawnSidecar(aEnv)
        const url = await second.ready
        // Everything acknowledged before the kill is in the restarted replica's store.
        const stored = new Map(
          ackedAtKill.size === 0 ? [] : inspectDocument(aDir, docId).stateVector.top.map((e) => [e.client, e.clock]),
        )
        for (const id of ackedAtKill) {
          const meta = Y.parseUpdateMeta(alice.updates.get(id)?.payload ?? new Uint8Array())
          for (const [client, to] of meta.to) expect(stored.get(client) ?? 0).toBeGreaterThanOrEqual(to)
        }

        await alice.connect(url)
        const tokens = Array.from({ length: EDITS }, (_, i) => [`a${i};`, `b${i};`]).flat()
        await poll(
          () =>
            alice.outbox.size === 0 &&
            bob.outbox.size === 0 &&
            alice.text === bob.text &&
            tokens.every((t) => alice.text.includes(t)),
          'convergence',
          20_000,
        )
        const ids = sentEnvelopes(toy).map((s) => s.envelope.messageId)
        expect(new Set(ids).size).toBe(ids.length)
        console.info(
          `seed ${seed}: killed after edit ${killAt}, ${ackedAtKill.size} acked before the kill, ${await metricValue(url, 'e2e_col_replays_acked_total')} replays acked without a send, ${ids.length} envelopes on Signal`,
        )
      },
    )
  }
})

describe('SIGKILL of a sidecar the moment it acknowledges an edit', () => {
  it('the restarted sidecar holds the edit and sends it: the other member gets it, with no page to replay it', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const aEnv = baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: tempDataDir() })
    const b = await sidecar(baseEnv(toy, B, docId))
    const bob = new YBrowser(docId)
    await bob.connect(b.url)
    const first = spawnSidecar(aEnv)
    const alice = new YBrowser(docId)
    await alice.connect(await first.ready)
    alice.edit('acknowledged, then killed;')
    const edit = [...alice.outbox.keys()][0]
    // Killed in the same turn as the ack frame is read: before the sidecar can do anything after it.
    let killed = false
    await alice.until(() => {
      if (!killed && edit !== undefined && alice.acked.has(edit)) killed = first.child.kill('SIGKILL')
      return killed
    }, 20_000)
    expect((await first.exited).signal).toBe('SIGKILL')
    // The page is gone too: only the sidecar's store holds the edit now.
    alice.close()
    const second = spawnSidecar(aEnv)
    const watcher = new YBrowser(docId)
    await watcher.connect(await second.ready)
    await watcher.until(() => watcher.text === 'acknowledged, then killed;', 20_000)
    await bob.until(() => bob.text === 'acknowledged, then killed;', 30_000)
  }, 60_000)
})
