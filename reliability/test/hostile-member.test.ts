/**
 * A hostile group member (account C, posting crafted bodies through the daemon's own `send`) and a
 * buggy local page, against real sidecars for A and B on the toy daemon. Each attack is bounded:
 * padded Yjs payloads are refused, long bodies dropped unread, one body's inflating and partial
 * chunk sets capped, one member cannot flush another's dedup memory or poison another's chunked
 * messages, a rejected id does not block its clean resend, and a body from someone who is not a
 * current member is dropped and counted.
 */
import {
  chunkFrame,
  decodeBody,
  decodeEnvelope,
  encodeBodies,
  encodeBody,
  encodeEnvelope,
  FLAGS,
  packBatch,
  type Envelope,
} from '@e2e-col/protocol'
import { randomBytes, randomUUID } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import {
  A,
  B,
  C,
  D,
  envelopeOf,
  metric,
  postAs,
  reader,
  rpcAs,
  sidecar,
  sidecarEnv,
  toyWithThree,
  update,
  waitFor,
  wsUrl,
} from './edge.ts'

const dropped = (reason: string) => `e2e_col_received_dropped_total{reason="${reason}"}`
const has = (list: readonly Envelope[], id: string) => list.some((e) => e.messageId === id)

/** An update of `text` followed by `padBytes` zero bytes: Yjs alone would read it as the update. */
function padded(text: string, padBytes: number): Uint8Array {
  const u = update(text)
  const out = new Uint8Array(u.length + padBytes)
  out.set(u)
  return out
}

/** The first of 1 024 chunks of a message of `total` bytes (that never comes), for `header`'s id. */
function firstChunk(header: Envelope, total: number): Uint8Array {
  const payload = new Uint8Array(17)
  const view = new DataView(payload.buffer)
  view.setUint32(0, 0) // index
  view.setUint32(4, 1024) // count
  view.setUint32(8, total)
  view.setUint32(12, 0) // crc32: never checked, the message never completes
  return encodeEnvelope({ ...header, kind: 'chunk', payload })
}

/** The envelope with its payload raw-deflated and the flag set, as a sending sidecar does. */
const deflated = (env: Envelope): Envelope => ({
  ...env,
  flags: env.flags | FLAGS.deflated,
  payload: new Uint8Array(deflateRawSync(env.payload)),
})

async function pair(extraB: Record<string, string> = {}, extraA: Record<string, string> = {}) {
  const toy = await toyWithThree()
  const docId = randomUUID()
  const sa = await sidecar(sidecarEnv(toy, A, docId, extraA))
  const sb = await sidecar(sidecarEnv(toy, B, docId, extraB))
  const atB = await reader(wsUrl(sb, docId))
  return { toy, docId, sa, sb, atB }
}

describe('one hostile member cannot make the group do more than it could alone', () => {
  it('refuses padded Yjs payloads, from the group and from a local page', async () => {
    const { toy, docId, sa, sb, atB } = await pair()
    // 256 KiB of padding behind a real update deflates into one small body.
    const pad = deflated(envelopeOf(docId, randomUUID(), padded('padded', 256 * 1024)))
    const body = encodeBody(encodeEnvelope(pad))
    expect(body.length).toBeLessThan(2000)
    await postAs(toy, C, body)
    const clean = envelopeOf(docId, randomUUID(), update('clean'))
    await postAs(toy, C, encodeBody(encodeEnvelope(clean)))
    await waitFor('the clean update at B', () => has(atB.received, clean.messageId))
    expect(has(atB.received, pad.messageId)).toBe(false)
    expect(await metric(sb, dropped('invalid-payload'))).toBe(1)

    // A local page: the same padding through its own sidecar is refused with a typed error.
    const page = await reader(wsUrl(sa, docId))
    const local = envelopeOf(docId, randomUUID(), padded('local', 64 * 1024))
    page.ws.send(encodeEnvelope(local))
    await waitFor('the refusal of the padded update', () =>
      page.received.some((e) => e.kind === 'error' && e.messageId === local.messageId),
    )
    const error = page.received.find((e) => e.kind === 'error' && e.messageId === local.messageId)
    expect(JSON.parse(new TextDecoder().decode(error?.payload)).code).toBe('SIDECAR_BAD_PAYLOAD')
    expect(page.received.some((e) => e.kind === 'ack' && e.messageId === local.messageId)).toBe(false)
    // Nothing of it reached the group (A's sidecar sends only its own announcements).
    expect(
      toy
        .sends()
        .filter((s) => s.account === A)
        .map((s) => decodeEnvelope(decodeBody(s.message)).kind)
        .filter((k) => k !== 'health'),
    ).toEqual([])
  })

  it('drops a body over the boundary unread, and caps what one long body can inflate or start', async () => {
    // Long bodies allowed up to 200 000 bytes: what one such body can cost is still bounded.
    const long = { E2E_COL_SIGNAL_BODY_MAX_BYTES: '200000', E2E_COL_ALLOW_LONG_BODIES: '1' }
    const { toy, docId, sb, atB } = await pair(long)
    const attacker = randomUUID()
    const over = envelopeOf(docId, attacker, update('x'.repeat(160_000)))
    await postAs(toy, C, encodeBody(encodeEnvelope(over)))

    // 30 deflate bombs of 4 MiB each in one batch (~170 KiB body): 120 MiB if each were inflated.
    const zeros = new Uint8Array(deflateRawSync(new Uint8Array(4 * 1024 * 1024)))
    const bomb = () => encodeEnvelope({ ...envelopeOf(docId, attacker, zeros), flags: FLAGS.deflated })
    const bombs = packBatch(
      { docId, senderId: attacker, messageId: randomBytes(16).toString('hex'), seq: 0 },
      Array.from({ length: 30 }, bomb),
      { maxBodyBytes: 200_000 },
    )
    expect(bombs.packed).toBe(30)
    const heapBefore = process.memoryUsage().heapUsed
    // The longest gap between 5 ms ticks: how long the (shared) event loop was held.
    let stalled = 0
    let tick = performance.now()
    const started = tick
    const probe = setInterval(() => {
      const now = performance.now()
      stalled = Math.max(stalled, now - tick)
      tick = now
    }, 5)
    await postAs(toy, C, encodeBody(bombs.frame))

    // 1 000 first chunks of 2 MiB messages that never complete, in one body.
    const firsts = Array.from({ length: 1000 }, () =>
      firstChunk(envelopeOf(docId, attacker, new Uint8Array(0)), 2 * 1024 * 1024),
    )
    const sets = packBatch({ docId, senderId: attacker, messageId: randomBytes(16).toString('hex'), seq: 0 }, firsts, {
      maxBodyBytes: 200_000,
    })
    expect(sets.packed).toBe(1000)
    await postAs(toy, C, encodeBody(sets.frame))
    const after = envelopeOf(docId, attacker, update('after'))
    await postAs(toy, C, encodeBody(encodeEnvelope(after)))
    await waitFor('the update after the attack at B', () => has(atB.received, after.messageId))
    clearInterval(probe)
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
    console.log(
      `long-body attack: heap +${heapMb.toFixed(1)} MB, event loop held at most ${stalled.toFixed(0)} ms, ${(performance.now() - started).toFixed(0)} ms until the next update arrived`,
    )

    expect(has(atB.received, over.messageId)).toBe(false)
    expect(await metric(sb, dropped('body-too-large'))).toBe(1)
    // The first bomb spends the body's budget; the other 29 are not inflated at all.
    expect(await metric(sb, dropped('inflate-too-large'))).toBe(1)
    expect(await metric(sb, dropped('body-budget'))).toBe(29)
    // Reassembly follows the frame bound: ≤ 64 partial messages and ~4 MiB per source.
    expect(await metric(sb, 'e2e_col_reassembly_evictions_total')).toBeGreaterThanOrEqual(1000 - 64)
    expect(heapMb).toBeLessThan(64)
  })

  it('keeps dedup per member: a flood of ids from one cannot push out another’s', async () => {
    const small = {
      E2E_COL_DEDUP_MAX_ENTRIES: '200',
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '100000',
      E2E_COL_ALLOW_LONG_BODIES: '1',
    }
    const { toy, docId, sb, atB } = await pair(small)
    const fromA = envelopeOf(docId, randomUUID(), update('from A'))
    const bodyA = encodeBody(encodeEnvelope(fromA))
    await postAs(toy, A, bodyA)
    await waitFor('A’s update at B', () => has(atB.received, fromA.messageId))
    // 5 bodies of 200 tiny envelopes from C: 1 000 ids, five times B's window.
    const attacker = randomUUID()
    for (let i = 0; i < 5; i++) {
      const frames = Array.from({ length: 200 }, () =>
        // No state (a presence names only its sender's own ids): passed on, stamped under a new id.
        encodeEnvelope(envelopeOf(docId, attacker, Uint8Array.of(0), 'awareness')),
      )
      const batch = packBatch(
        { docId, senderId: attacker, messageId: randomBytes(16).toString('hex'), seq: i },
        frames,
        { maxBodyBytes: 100_000 },
      )
      expect(batch.packed).toBe(200)
      await postAs(toy, C, encodeBody(batch.frame))
    }
    await waitFor('the flood at B', () => atB.received.filter((e) => e.kind === 'awareness').length >= 1000)
    // A's message comes again (a resend after a lost answer): still recognised.
    await postAs(toy, A, bodyA)
    const marker = envelopeOf(docId, randomUUID(), update('marker'))
    await postAs(toy, A, encodeBody(encodeEnvelope(marker)))
    await waitFor('A’s marker at B', () => has(atB.received, marker.messageId))
    expect(atB.received.filter((e) => e.messageId === fromA.messageId)).toHaveLength(1)
    expect(await metric(sb, 'e2e_col_dedup_hits_total')).toBeGreaterThanOrEqual(1)
  })

  it('keeps chunk sets per member, and a rejected id does not block a clean resend', async () => {
    const { toy, docId, atB } = await pair()
    const big = envelopeOf(docId, randomUUID(), update(randomBytes(3000).toString('hex')))
    const bodies = encodeBodies(encodeEnvelope(big), { maxBodyBytes: 2000 })
    expect(bodies.length).toBeGreaterThan(2)
    const poisoned = (index: number) => {
      const chunk = decodeEnvelope(chunkFrame(encodeEnvelope(big), { maxBodyBytes: 2000 })[index] ?? new Uint8Array())
      const payload = chunk.payload.slice()
      payload[payload.length - 1] = (payload[payload.length - 1] ?? 0) ^ 0xff
      return encodeBody(encodeEnvelope({ ...chunk, payload }))
    }
    // C races A with a conflicting last chunk for A's message id: only C's own set is spoiled.
    await postAs(toy, C, poisoned(bodies.length - 1))
    for (const b of bodies.slice(0, -1)) await postAs(toy, A, b)
    await postAs(toy, C, poisoned(0))
    await postAs(toy, A, bodies.at(-1) ?? '')
    await waitFor('A’s chunked update at B despite C’s chunks', () => has(atB.received, big.messageId))

    // A's own copy is spoiled (a conflicting chunk rejects it); the clean resend still completes.
    const again = envelopeOf(docId, randomUUID(), update(randomBytes(3000).toString('hex')))
    const clean = encodeBodies(encodeEnvelope(again), { maxBodyBytes: 2000 })
    const spoilt = (() => {
      const chunk = decodeEnvelope(chunkFrame(encodeEnvelope(again), { maxBodyBytes: 2000 })[0] ?? new Uint8Array())
      const payload = chunk.payload.slice()
      payload[payload.length - 1] = (payload[payload.length - 1] ?? 0) ^ 0xff
      return encodeBody(encodeEnvelope({ ...chunk, payload }))
    })()
    await postAs(toy, A, clean[0] ?? '')
    await postAs(toy, A, spoilt)
    for (const b of clean) await postAs(toy, A, b)
    await waitFor('the clean resend at B', () => has(atB.received, again.messageId))
    expect(atB.received.filter((e) => e.messageId === again.messageId)).toHaveLength(1)
  })

  it('drops and counts bodies from someone who is not a current member, and reads a member added since start', async () => {
    const { toy, docId, sb, atB } = await pair({ E2E_COL_MEMBERS_REFRESH_MS: '1000' })
    // A (the group's admin) removes C, then adds D.
    await rpcAs(toy, A, 'updateGroup', { groupId: toy.groups[0]?.id, removeMembers: [C] })
    await rpcAs(toy, A, 'updateGroup', { groupId: toy.groups[0]?.id, members: [D] })
    const fromD = envelopeOf(docId, randomUUID(), update('from D'))
    await postAs(toy, D, encodeBody(encodeEnvelope(fromD)))
    await waitFor('the new member’s update at B', () => has(atB.received, fromD.messageId))
    // After B lists the group again, C's body (delivered by a daemon that should have refused it) is dropped.
    await new Promise((r) => setTimeout(r, 1500))
    toy.faults.admitNonMemberSends(1)
    const fromC = envelopeOf(docId, randomUUID(), update('from C'))
    await postAs(toy, C, encodeBody(encodeEnvelope(fromC)))
    const marker = envelopeOf(docId, randomUUID(), update('marker'))
    await postAs(toy, A, encodeBody(encodeEnvelope(marker)))
    await waitFor('A’s marker at B', () => has(atB.received, marker.messageId))
    await waitFor('the non-member drop at B', async () => (await metric(sb, dropped('non-member'))) === 1)
    expect(has(atB.received, fromC.messageId)).toBe(false)
  })
})
