import { decodeEnvelope, encodeAttachmentRef, encodeEnvelope, envelopeByteLength } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { sha256 } from '../send/attachment-send.ts'
import { createAttachmentFetcher } from './attachment-fetch.ts'

const DOC = '0f8fad5b-d9cb-469f-a165-70867728950e'
const SENDER = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
const frame = encodeEnvelope({
  kind: 'snapshot',
  flags: 0,
  docId: DOC,
  senderId: SENDER,
  messageId: 'ab'.repeat(16),
  seq: 3,
  payload: new Uint8Array(8000).fill(5),
})
const ref = decodeEnvelope(encodeAttachmentRef(frame, sha256(frame)))
const listed = [{ id: 'x.bin', size: frame.length, contentType: 'application/octet-stream' }]

function fetcher(
  fetch: (id: string) => Promise<Uint8Array>,
  overrides: Partial<Parameters<typeof createAttachmentFetcher>[0]> = {},
) {
  const asked: string[] = []
  const f = createAttachmentFetcher({
    fetch: (id) => (asked.push(id), fetch(id)),
    maxPayloadBytes: 1 << 20,
    timeoutMs: 1000,
    maxInFlight: 4,
    maxWaiting: 64,
    ...overrides,
  })
  return { f, asked }
}

/** A fetcher whose fetches answer `frame` only when the test calls the next of `release`. */
function heldFetcher(overrides: Partial<Parameters<typeof createAttachmentFetcher>[0]>) {
  const release: (() => void)[] = []
  const { f } = fetcher(() => new Promise<Uint8Array>((resolve) => release.push(() => resolve(frame))), overrides)
  return { f, release }
}

/** Opens `ref` with a daemon that answers the fetch with error `rpcCode`. */
const openRefused = (rpcCode: number) =>
  fetcher(async () => Promise.reject(Object.assign(new Error('daemon error'), { rpcCode }))).f.open('g', ref, listed)

describe('attachment fetches', () => {
  it('open the named frame after checking length and SHA-256', async () => {
    const { f, asked } = fetcher(async () => frame)
    const r = await f.open('g', ref, listed)
    expect(r.ok && r.envelope.kind).toBe('snapshot')
    expect(asked).toEqual(['x.bin'])
  })

  it('never ask for a frame over the payload bound, or one the message does not list', async () => {
    const { f, asked } = fetcher(async () => frame, { maxPayloadBytes: 1000 })
    expect(await f.open('g', ref, listed)).toEqual({ ok: false, reason: 'too-large' })
    const open = fetcher(async () => frame)
    expect(await open.f.open('g', ref, [])).toEqual({ ok: false, reason: 'missing' })
    expect(await open.f.open('g', ref, [{ id: 'other', size: 12, contentType: undefined }])).toEqual({
      ok: false,
      reason: 'corrupt',
    })
    expect([...asked, ...open.asked]).toEqual([])
  })

  it('report spoiled bytes as corrupt, a daemon -1 as missing, a late answer as failed', async () => {
    const spoiled = frame.slice()
    spoiled[100] = (spoiled[100] ?? 0) ^ 1
    expect(await fetcher(async () => spoiled).f.open('g', ref, listed)).toEqual({ ok: false, reason: 'corrupt' })
    expect(await openRefused(-1)).toEqual({ ok: false, reason: 'missing' })
    expect(await fetcher(() => new Promise(() => {}), { timeoutMs: 20 }).f.open('g', ref, listed)).toEqual({
      ok: false,
      reason: 'failed',
    })
  })

  it('run at most maxInFlight at once and drop beyond maxWaiting as busy', async () => {
    const { f, release } = heldFetcher({ maxInFlight: 1, maxWaiting: 1 })
    const first = f.open('g', ref, listed)
    const second = f.open('g', ref, listed)
    expect(await f.open('g', ref, listed)).toEqual({ ok: false, reason: 'busy' })
    expect(release).toHaveLength(1)
    release.shift()?.()
    expect((await first).ok).toBe(true)
    await new Promise((r) => setTimeout(r, 0))
    release.shift()?.()
    expect((await second).ok).toBe(true)
  })
})

describe('attachment fetches: the edges', () => {
  it('asks for a frame of exactly the largest accepted length, and refuses one byte more', async () => {
    const payloadBytes = decodeEnvelope(frame).payload.length
    expect(envelopeByteLength(3, payloadBytes)).toBe(frame.length)
    const exact = fetcher(async () => frame, { maxPayloadBytes: payloadBytes })
    expect((await exact.f.open('g', ref, listed)).ok).toBe(true)
    const under = fetcher(async () => frame, { maxPayloadBytes: payloadBytes - 1 })
    expect(await under.f.open('g', ref, listed)).toEqual({ ok: false, reason: 'too-large' })
  })

  it('takes a lone attachment the daemon listed without a size, but not one of several', async () => {
    const unsized = [{ id: 'x.bin', size: undefined, contentType: undefined }]
    const one = fetcher(async () => frame)
    expect((await one.f.open('g', ref, unsized)).ok).toBe(true)
    expect(one.asked).toEqual(['x.bin'])
    const two = fetcher(async () => frame)
    expect(await two.f.open('g', ref, [...unsized, { id: 'y.bin', size: undefined, contentType: undefined }])).toEqual({
      ok: false,
      reason: 'corrupt',
    })
    expect(two.asked).toEqual([])
    // Listed by size among others: the one whose size matches.
    const sized = fetcher(async () => frame)
    const among = [{ id: 'small.bin', size: 10, contentType: undefined }, ...listed]
    expect((await sized.f.open('g', ref, among)).ok).toBe(true)
    expect(sized.asked).toEqual(['x.bin'])
  })

  it('reports a fetch error other than -1 as failed, and a reference that does not decode as corrupt', async () => {
    expect(await openRefused(-3)).toEqual({ ok: false, reason: 'failed' })
    expect(await fetcher(async () => frame).f.open('g', { ...ref, payload: new Uint8Array(3) }, listed)).toEqual({
      ok: false,
      reason: 'corrupt',
    })
  })

  it('frees a slot when a fetch ends, so fetches never stall after maxInFlight of them', async () => {
    const { f } = fetcher(async () => frame, { maxInFlight: 1, maxWaiting: 0 })
    for (let i = 0; i < 5; i++) expect((await f.open('g', ref, listed)).ok).toBe(true)
    expect(f.pending).toBe(0)
  })

  it('counts running and waiting fetches as pending, and refuses none while a slot is free', async () => {
    const { f, release } = heldFetcher({ maxInFlight: 2, maxWaiting: 0 })
    const a = f.open('g', ref, listed)
    await new Promise((r) => setTimeout(r, 0))
    expect(f.pending).toBe(1)
    const b = f.open('g', ref, listed) // a slot is free: not busy even with no room to wait
    await new Promise((r) => setTimeout(r, 0))
    expect(f.pending).toBe(2)
    for (const r of release.splice(0)) r()
    expect((await a).ok && (await b).ok).toBe(true)
  })
})

describe('attachment fetches: before and while asking', () => {
  it('calls an undecodable reference corrupt without fetching, even with a lone unsized attachment', async () => {
    const { f, asked } = fetcher(async () => frame)
    const broken = { ...ref, payload: new Uint8Array(3) }
    expect(await f.open('g', broken, [{ id: 'x.bin', size: undefined, contentType: undefined }])).toEqual({
      ok: false,
      reason: 'corrupt',
    })
    expect(asked).toEqual([])
  })

  it('calls an answer of another length than the reference names corrupt', async () => {
    expect(await fetcher(async () => frame.subarray(1)).f.open('g', ref, listed)).toEqual({
      ok: false,
      reason: 'corrupt',
    })
    const longer = new Uint8Array(frame.length + 1)
    longer.set(frame)
    expect(await fetcher(async () => longer).f.open('g', ref, listed)).toEqual({ ok: false, reason: 'corrupt' })
  })

  it('calls an answer the checks cannot read (not bytes) failed, not corrupt', async () => {
    // Of the right length, so only hashing it finds out: a fault on this side, not a spoiled file.
    const notBytes = { length: frame.length } as unknown as Uint8Array
    expect(await fetcher(async () => notBytes).f.open('g', ref, listed)).toEqual({ ok: false, reason: 'failed' })
  })

  it('counts running and waiting fetches as pending', async () => {
    const { f, release: releases } = heldFetcher({ maxInFlight: 1 })
    const first = f.open('g', ref, listed)
    const second = f.open('g', ref, listed)
    const third = f.open('g', ref, listed)
    expect(f.pending).toBe(3)
    while (releases.length < 1) await new Promise((r) => setImmediate(r))
    releases.shift()!()
    expect((await first).ok).toBe(true)
    expect(f.pending).toBe(2)
    while (releases.length < 1) await new Promise((r) => setImmediate(r))
    releases.shift()!()
    await second
    while (releases.length < 1) await new Promise((r) => setImmediate(r))
    releases.shift()!()
    await third
    expect(f.pending).toBe(0)
  })
})
