import { encodeEnvelope, FLAGS, type Envelope } from '@e2e-col/protocol'
import { manualTimers } from '@e2e-col/sync/testing'
import { randomBytes, randomUUID } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { installNodeCodecs } from '../node-codecs.ts'
import { openReplicaStore, type ReplicaStore } from '../replica/store.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'
import { packNext } from '../send/bodies.ts'
import { FIXTURE_GROUP as GROUP, ingestFixture, randomEnvelope } from './ingest-fixture.ts'
import { createRememberedIds, type RememberedIdsOptions } from './remembered-ids.ts'

installNodeCodecs()
const DOC = randomUUID()
const header = () => ({ docId: DOC, senderId: randomUUID(), messageId: randomBytes(16).toString('hex'), seq: 0 })

function bodiesFor(frames: Uint8Array[], maxBodyBytes: number): string[] {
  const out: string[] = []
  let rest = frames
  while (rest.length > 0) {
    const p = packNext(rest, maxBodyBytes, header)
    out.push(...p.bodies)
    rest = rest.slice(p.taken)
  }
  return out
}

/** A sidecar's receive path over the store in `dir`: open it, deliver, stop (flush, close). */
function receiver(dir: string, now = () => 5_000) {
  const store = openReplicaStore(dir)
  const timers = manualTimers()
  const remembered = createRememberedIds({
    table: store.receivedIds,
    timers: { ...timers, now },
    flushMs: 200,
    maxWaiting: 512,
    ttlMs: 60_000,
    maxRows: 1000,
    onError: (error) => {
      throw error
    },
  })
  const fixture = ingestFixture(DOC, { remembered, now })
  const from = (source: string, bodies: string[]) => {
    for (const b of bodies) fixture.ingest.handle(GROUP, b, { source })
  }
  const stop = () => {
    remembered.flush()
    store.close()
  }
  return { ...fixture, from, stop, timers, store }
}

function table() {
  const writes: number[] = []
  const rows: { at: number }[] = []
  const t: RememberedIdsOptions['table'] = {
    record: (ids) => {
      writes.push(ids.length)
      rows.push(...ids)
    },
    recent: () => [],
    prune: () => 0,
  }
  return { t, writes, rows }
}
const id = (n: number) => ({ source: 's', docId: DOC, senderId: 'x', messageId: String(n), at: n })

const open = (): ReplicaStore => openReplicaStore(tempStoreDir('received-table'))
const row = (n: number, source = 's') => ({ source, docId: DOC, senderId: 'x', messageId: `m${n}`, at: n })

describe('delivered ids kept across a restart', () => {
  it('drops the copies of a batch delivered before the sidecar restarted, from the same member only', async () => {
    const dir = tempStoreDir('received')
    const envs: Envelope[] = Array.from({ length: 16 }, () => randomEnvelope(DOC, randomUUID(), 40))
    const bodies = bodiesFor(envs.map(encodeEnvelope), 4000)
    const before = receiver(dir)
    before.from('member-c', bodies)
    expect(before.delivered).toHaveLength(16)
    before.stop()

    const after = receiver(dir)
    // The sender's retry of the same body, after the restart: nothing delivered again.
    after.from('member-c', bodies)
    expect(after.delivered).toEqual([])
    expect((await after.metrics.dedupHits.get()).values[0]?.value).toBe(16)
    // Dedup stays per source: the same ids from another account are its own (ids are not shared).
    after.from('member-d', bodies.slice(0, 1))
    expect(after.delivered.length).toBeGreaterThan(0)
    after.stop()
  })

  it('drops a chunked deflated envelope redelivered whole after the restart, without reassembling it', async () => {
    const dir = tempStoreDir('received')
    const env = {
      ...randomEnvelope(DOC, randomUUID(), 0),
      payload: new TextEncoder().encode(randomBytes(8000).toString('hex')),
    }
    const frame = encodeEnvelope({
      ...env,
      flags: FLAGS.deflated,
      payload: new Uint8Array(deflateRawSync(env.payload)),
    })
    const bodies = bodiesFor([frame], 600)
    expect(bodies.length).toBeGreaterThan(5)
    const before = receiver(dir)
    before.from('member-c', bodies)
    expect(before.delivered).toEqual([env])
    before.stop()
    const after = receiver(dir)
    after.from('member-c', bodies)
    expect(after.delivered).toEqual([])
    expect((await after.metrics.dedupHits.get()).values[0]?.value).toBe(bodies.length)
    after.stop()
  })

  it('delivers again what the store did not keep: ids older than the dedup window', () => {
    const dir = tempStoreDir('received')
    const bodies = bodiesFor([encodeEnvelope(randomEnvelope(DOC, randomUUID(), 40))], 4000)
    const before = receiver(dir, () => 5_000)
    before.from('member-c', bodies)
    before.stop()
    // A day later (past the 60 s window) the id is forgotten: a message is not remembered forever.
    const after = receiver(dir, () => 5_000 + 61_000)
    after.from('member-c', bodies)
    expect(after.delivered).toHaveLength(1)
    after.stop()
  })
})

/** A writer over a recording table, flushing after 200 ms or at `maxWaiting` sightings. */
function writer(maxWaiting: number) {
  const timers = manualTimers()
  const { t, writes } = table()
  const r = createRememberedIds({
    table: t,
    timers,
    flushMs: 200,
    maxWaiting,
    ttlMs: 1000,
    maxRows: 100,
    onError: () => {},
  })
  return { timers, writes, r }
}

describe('writing delivered ids', () => {
  it('writes a spell of first sightings in one transaction after flushMs, not one synced write each', () => {
    const { timers, writes, r } = writer(512)
    for (let n = 0; n < 10; n++) r.record(id(n))
    expect(writes).toEqual([])
    timers.advance(199)
    expect(writes).toEqual([])
    timers.advance(1)
    expect(writes).toEqual([10])
  })

  it('writes at once when maxWaiting sightings wait, and whatever waits at stop', () => {
    const { timers, writes, r } = writer(4)
    for (let n = 0; n < 6; n++) r.record(id(n))
    expect(writes).toEqual([4])
    r.flush()
    expect(writes).toEqual([4, 2])
    expect(timers.pending()).toBe(0)
  })

  it('reports a failed write once per failure and keeps receiving (the ids stay in memory)', () => {
    const timers = manualTimers()
    const errors: unknown[] = []
    const r = createRememberedIds({
      table: {
        record: () => {
          throw new Error('disk full')
        },
        recent: () => [],
        prune: () => 0,
      },
      timers,
      flushMs: 200,
      maxWaiting: 512,
      ttlMs: 1000,
      maxRows: 100,
      onError: (e) => errors.push(e),
    })
    r.record(id(1))
    expect(() => r.flush()).not.toThrow()
    expect(errors).toHaveLength(1)
  })
})

describe('the received-ids table', () => {
  it('reads back the newest rows oldest first, at most the limit asked', () => {
    const s = open()
    s.receivedIds.record([row(3), row(1), row(2), row(4)])
    expect(s.receivedIds.recent(0, 3).map((r) => r.messageId)).toEqual(['m2', 'm3', 'm4'])
    expect(s.receivedIds.recent(3, 10).map((r) => r.at)).toEqual([3, 4])
    s.close()
  })

  it('keeps the first time of an id recorded twice', () => {
    const s = open()
    s.receivedIds.record([row(5)])
    s.receivedIds.record([{ ...row(5), at: 9 }])
    expect(s.receivedIds.recent(0, 10)).toEqual([row(5)])
    s.close()
  })

  it('prunes rows older than the window and all but the newest kept, counting what went', () => {
    const s = open()
    s.receivedIds.record(Array.from({ length: 10 }, (_, n) => row(n + 1)))
    expect(s.receivedIds.prune(3, 5)).toBe(5) // 1 and 2 by age, then 3..5 by count
    expect(s.receivedIds.recent(0, 100).map((r) => r.at)).toEqual([6, 7, 8, 9, 10])
    s.close()
  })

  it('refuses to write when the store is opened read-only', () => {
    const dir = tempStoreDir('received-ro')
    openReplicaStore(dir).close()
    const ro = openReplicaStore(dir, { readonly: true })
    expect(() => ro.receivedIds.record([row(1)])).toThrow(/read-only/)
    expect(ro.receivedIds.recent(0, 10)).toEqual([])
    ro.close()
  })
})
