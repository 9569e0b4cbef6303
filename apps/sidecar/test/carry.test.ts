import { describe, expect, it } from 'vitest'
import { bodyByteLength } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { capabilitiesExchanged, connect, count, envelope, isAck, isMessage, metricValue, startPair } from './harness.ts'

describe('two sidecars carry envelopes through one Signal group', () => {
  it("delivers A's envelope to B exactly once, to A's other client at once, acks it, and never echoes the sync copy", async () => {
    const p = await startPair()
    const [a1, a2, b1] = await Promise.all([connect(p.a, p.docId), connect(p.a, p.docId), connect(p.b, p.docId)])
    const m1 = envelope(p.docId, a1.senderId, 32)
    a1.send(m1)
    await a2.waitFor(isMessage(m1.messageId))
    await a1.waitFor(isAck(m1.messageId))
    const got = await b1.waitFor(isMessage(m1.messageId))
    expect(Buffer.from(got.payload).equals(Buffer.from(m1.payload))).toBe(true)
    // B answers; once A has B's answer, A's stream has also carried the sync copy of m1.
    const m2 = envelope(p.docId, b1.senderId, 16)
    b1.send(m2)
    await a1.waitFor(isMessage(m2.messageId))
    await a2.waitFor(isMessage(m2.messageId))
    expect(count(a1, m1.messageId)).toBe(0)
    expect(count(a2, m1.messageId)).toBe(1)
    expect(count(b1, m1.messageId)).toBe(1)
    expect(count(b1, m2.messageId)).toBe(0)
    // The sync copy did reach A's sidecar and was dropped there as its own send.
    const metrics = await (await fetch(`${p.a.url}/metrics`)).text()
    expect(Number(/^e2e_col_dedup_hits_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
  })

  it('carries a 100 KiB payload whole while every body stays within a 600-byte boundary', async () => {
    // The text path: A reads no attachments, so it never sends one.
    const p = await startPair({ a: { E2E_COL_CAPABILITIES: 'deflate' } })
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    const big = envelope(p.docId, a1.senderId, 100 * 1024)
    a1.send(big)
    const got = await b1.waitFor(isMessage(big.messageId), 15_000)
    expect(Buffer.from(got.payload).equals(Buffer.from(big.payload))).toBe(true)
    await a1.waitFor(isAck(big.messageId))
    const sends = p.toy.sends()
    expect(sends.length).toBeGreaterThan(100)
    for (const s of sends) expect(bodyByteLength(s.message)).toBeLessThanOrEqual(600)
  })

  it('batches a burst of 200 small envelopes into far fewer Signal sends, each delivered once', async () => {
    const p = await startPair()
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    const burst = Array.from({ length: 200 }, () => envelope(p.docId, a1.senderId, 12))
    for (const m of burst) a1.send(m)
    const last = burst[burst.length - 1]?.messageId ?? ''
    await b1.waitFor(isMessage(last), 15_000)
    await Promise.all(burst.map((m) => b1.waitFor(isMessage(m.messageId))))
    await Promise.all(burst.map((m) => a1.waitFor(isAck(m.messageId))))
    expect(p.toy.sends().length).toBeLessThanOrEqual(50)
    for (const m of burst) expect(count(b1, m.messageId)).toBe(1)
  })
})

/** A real Yjs update of typed prose: compressible the way documents are. */
function proseUpdate(chars: number): Uint8Array {
  const doc = new Y.Doc()
  const words = [
    'shared',
    'document',
    'signal',
    'group',
    'edit',
    'merge',
    'sidecar',
    'browser',
    'the',
    'a',
    'of',
    'and',
  ]
  doc
    .getText('t')
    .insert(0, Array.from({ length: chars / 6 }, (_, i) => words[(i * 7 + (i >> 3)) % words.length]).join(' '))
  return Y.encodeStateAsUpdate(doc)
}

async function carry(compress: '0' | '1') {
  // Text bodies only, so the comparison is deflated chunks against plain chunks.
  const p = await startPair({
    a: { E2E_COL_COMPRESS: compress, E2E_COL_CAPABILITIES: 'deflate' },
    b: { E2E_COL_CAPABILITIES: 'deflate' },
  })
  const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
  // A deflates only once B said it reads deflated payloads.
  await capabilitiesExchanged(p.a, p.b)
  const before = p.toy.sends().length
  const big = envelope(p.docId, a1.senderId, proseUpdate(60_000))
  a1.send(big)
  const got = await b1.waitFor(isMessage(big.messageId), 15_000)
  await a1.waitFor(isAck(big.messageId))
  return {
    big,
    got,
    sends: p.toy.sends().length - before,
    deflated: await metricValue(p.a.url, 'e2e_col_envelopes_deflated_total'),
  }
}

describe('payload compression between sidecars', () => {
  it('deflates a large update on the way (fewer Signal sends), and B gets the exact plain envelope', async () => {
    const on = await carry('1')
    expect(on.got).toEqual({ ...on.big, payload: on.got.payload })
    expect(Buffer.from(on.got.payload).equals(Buffer.from(on.big.payload))).toBe(true)
    expect(on.deflated).toBe(1)
    const off = await carry('0')
    expect(off.deflated).toBe(0)
    expect(on.sends).toBeLessThan(off.sends / 2)
  })
})
