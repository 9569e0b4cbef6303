/**
 * Hostile input from the daemon side: a third group member (account C) posts bodies that are not
 * ours, malformed, huge, of local-only kinds, for another document, deflated into a bomb or not
 * DEFLATE at all, and a flood of first chunks that never complete. The sidecar drops and counts each, its reassembly stays within bounds, and
 * A's and C's real updates still reach B's browser, each once.
 */
import { chunkFrame, encodeBody, encodeEnvelope, FLAGS } from '@e2e-col/protocol'
import { randomBytes, randomUUID } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { decodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { A, B, C, envelopeOf, open, Probe, sidecar, sidecarEnv, toyWithThree, update, wsUrl } from './edge.ts'

async function metric(url: string, prefix: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return text
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)
}

describe('hostile bodies from the group', () => {
  it('drops and counts them, keeps reassembly bounded, and still delivers real updates once', async () => {
    const toy = await toyWithThree()
    const docId = randomUUID()
    const groupId = toy.groups[0]?.id ?? ''
    const reassembly = { E2E_COL_REASSEMBLY_MAX_MESSAGES: '8', E2E_COL_REASSEMBLY_MAX_BYTES: '65536' }
    const sa = await sidecar(sidecarEnv(toy, A, docId))
    const sb = await sidecar(sidecarEnv(toy, B, docId, reassembly))
    const probe = await Probe.connect(wsUrl(sa, docId), docId)
    const reader = await open(wsUrl(sb, docId))
    const received: Envelope[] = []
    reader.ws.on('message', (data: Buffer) => received.push(decodeEnvelope(new Uint8Array(data))))

    let rpcId = 0
    const postAsC = async (message: string) => {
      const res = await fetch(`${toy.url}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'send', params: { account: C, groupId, message } }),
      })
      expect(res.status).toBe(200)
      await res.text()
    }
    const attacker = randomUUID()
    const heapBefore = process.memoryUsage().heapUsed
    // Not ours, or not readable.
    await postAsC('hello, plain group chat')
    await postAsC('e2e-col:v2:AAAA')
    await postAsC('e2e-col:v1:!!!!')
    await postAsC('e2e-col:v1: AAAA')
    await postAsC(`e2e-col:v1:${'A'.repeat(2 * 1024 * 1024)}`)
    // Ours but not allowed: local-only kinds, another document.
    await postAsC(encodeBody(encodeEnvelope(envelopeOf(docId, attacker, new Uint8Array(0), 'ack'))))
    await postAsC(
      encodeBody(
        encodeEnvelope(envelopeOf(docId, attacker, new TextEncoder().encode('{"code":"X","message":"y"}'), 'error')),
      ),
    )
    await postAsC(encodeBody(encodeEnvelope(envelopeOf(randomUUID(), attacker, update('other doc')))))
    // Deflated envelopes: a bomb (16 MiB of zeros in ~16 KB, over the 2 MiB frame bound) and a
    // payload that is not DEFLATE data.
    const bomb = encodeEnvelope({
      ...envelopeOf(docId, attacker, new Uint8Array(deflateRawSync(new Uint8Array(16 * 1024 * 1024)))),
      flags: FLAGS.deflated,
    })
    for (const chunk of chunkFrame(bomb, { maxBodyBytes: 2000 })) await postAsC(encodeBody(chunk))
    await postAsC(
      encodeBody(encodeEnvelope({ ...envelopeOf(docId, attacker, Uint8Array.of(7, 7, 7)), flags: FLAGS.deflated })),
    )
    // A flood of first chunks of 200 large messages that never complete.
    for (let i = 0; i < 200; i++) {
      const big = encodeEnvelope(envelopeOf(docId, attacker, randomBytes(16 * 1024), 'snapshot'))
      const first = chunkFrame(big, { maxBodyBytes: 2000 })[0]
      if (first === undefined) throw new Error('expected chunks')
      await postAsC(encodeBody(first))
    }
    // Real traffic still flows: A's probe, a chunked update from A, and a valid update from C.
    for (let i = 0; i < 5; i++) await probe.roundTrip()
    const legit = envelopeOf(docId, attacker, update('from C'))
    await postAsC(encodeBody(encodeEnvelope(legit)))
    const bigFromA = await open(wsUrl(sa, docId))
    const big = envelopeOf(docId, randomUUID(), update(randomBytes(6000).toString('hex')))
    bigFromA.ws.send(encodeEnvelope(big))
    const deadline = Date.now() + 10_000
    const has = (id: string) => received.some((e) => e.messageId === id)
    while (!(has(legit.messageId) && has(big.messageId)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    expect(has(legit.messageId)).toBe(true)
    expect(has(big.messageId)).toBe(true)

    expect(received.filter((e) => e.kind === 'ack' || e.kind === 'error')).toEqual([])
    expect(received.every((e) => e.docId === docId)).toBe(true)
    const keys = received.map((e) => `${e.senderId}/${e.messageId}`)
    expect(new Set(keys).size).toBe(keys.length)
    expect(received.filter((e) => e.kind === 'update').length).toBe(7) // 5 probes, C's, A's big one
    // Without the e2e-col:v1: prefix (plain chat, and a future version) a body is left to chat.
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="plain-text"}')).toBe(2)
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="invalid-body"}')).toBe(2)
    // The 2 MiB body is over the receive bound: dropped before any decoding.
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="body-too-large"}')).toBe(1)
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="local-only-kind"}')).toBe(2)
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="wrong-document"}')).toBe(1)
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="inflate-too-large"}')).toBe(1)
    expect(await metric(sb.url, 'e2e_col_received_dropped_total{reason="inflate-failed"}')).toBe(1)
    expect(await metric(sb.url, 'e2e_col_reassembly_evictions_total')).toBeGreaterThanOrEqual(190)
    const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
    console.log(
      `daemon-side abuse: heap +${heapGrowthMb.toFixed(1)} MB over 200 never-completing chunked messages and a 2 MiB body`,
    )
    expect(heapGrowthMb).toBeLessThan(200)
  }, 60_000)
})
