import { decodeEnvelope, encodeAttachmentRef, encodeEnvelope } from '@e2e-col/protocol'
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
    expect(
      await fetcher(async () => Promise.reject(Object.assign(new Error('nope'), { rpcCode: -1 }))).f.open(
        'g',
        ref,
        listed,
      ),
    ).toEqual({ ok: false, reason: 'missing' })
    expect(await fetcher(() => new Promise(() => {}), { timeoutMs: 20 }).f.open('g', ref, listed)).toEqual({
      ok: false,
      reason: 'failed',
    })
  })

  it('run at most maxInFlight at once and drop beyond maxWaiting as busy', async () => {
    const release: (() => void)[] = []
    const { f } = fetcher(() => new Promise((resolve) => release.push(() => resolve(frame))), {
      maxInFlight: 1,
      maxWaiting: 1,
    })
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
