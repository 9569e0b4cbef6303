/**
 * Abuse at the WebSocket edge of a real sidecar: while each abuse runs, a well-behaved client on
 * the same document keeps getting its updates acknowledged. Its median ack latency during the
 * abuse over its latency at rest is printed (timings are not asserted: the machine is shared).
 */
import { encodeEnvelope } from '@e2e-col/protocol'
import { randomBytes, randomUUID } from 'node:crypto'
import { connect as netConnect } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import type { WebSocket } from 'ws'
import { A, B, closed, envelopeOf, open, Probe, sidecar, sidecarEnv, toyWithThree, update, wsUrl } from './edge.ts'

const MAX_FRAME = 64 * 1024
const ratios: string[] = []

describe('abuse at the WebSocket edge', () => {
  // Fixtures close with the test (onTestFinished), so the whole stack lives in one test.
  let url = ''
  let docId = ''
  let sidecarUrl = ''
  let probe: Probe
  let atRest = 0

  afterAll(() => {
    console.log(`probe latency during abuse / at rest:\n  ${ratios.join('\n  ')}`)
  })

  /** Runs `abuse` in a loop while the probe measures; returns the ratio and prints it. */
  async function during(name: string, abuse: () => Promise<void>): Promise<number> {
    const stop = new AbortController()
    let rounds = 0
    const loop = (async () => {
      while (!stop.signal.aborted) {
        await abuse()
        rounds += 1
        await new Promise((r) => setImmediate(r))
      }
    })()
    await new Promise((r) => setTimeout(r, 100))
    const median = await probe.median(7)
    stop.abort()
    await loop
    const ratio = median / atRest
    ratios.push(
      `${name}: ${median.toFixed(1)} ms vs ${atRest.toFixed(1)} ms at rest = ${ratio.toFixed(2)}x (${rounds} abuse rounds)`,
    )
    expect(rounds).toBeGreaterThan(0)
    return ratio
  }

  it('serves a well-behaved client through every abuse', async () => {
    const toy = await toyWithThree()
    docId = randomUUID()
    const sa = await sidecar(
      sidecarEnv(toy, A, docId, { E2E_COL_MAX_FRAME_BYTES: String(MAX_FRAME), E2E_COL_MAX_CONNECTIONS_PER_DOC: '40' }),
    )
    await sidecar(sidecarEnv(toy, B, docId))
    sidecarUrl = sa.url
    url = wsUrl(sa, docId)
    probe = await Probe.connect(url, docId)
    await probe.median(3) // warm up
    atRest = await probe.median(9)

    const codes = new Map<string, number[]>()
    const seen = (k: string, code: number) => codes.set(k, [...(codes.get(k) ?? []), code])

    await during('oversize frames', async () => {
      const { ws } = await open(url)
      ws.send(randomBytes(MAX_FRAME + 1))
      seen('oversize', await closed(ws))
    })
    await during('text frames', async () => {
      const { ws } = await open(url)
      for (let i = 0; i < 5 && ws.readyState === ws.OPEN; i++) ws.send('hello')
      seen('text', await closed(ws))
    })
    await during('forged document ids', async () => {
      const { ws } = await open(url)
      for (let i = 0; i < 5 && ws.readyState === ws.OPEN; i++)
        ws.send(encodeEnvelope(envelopeOf(randomUUID(), randomUUID(), update('x'))))
      seen('wrong-doc', await closed(ws))
    })
    await during('forged sender ids', async () => {
      const { ws } = await open(url)
      for (let i = 0; i < 6 && ws.readyState === ws.OPEN; i++)
        ws.send(encodeEnvelope(envelopeOf(docId, randomUUID(), update('y'))))
      seen('sender', await closed(ws))
    })
    await during('undecodable frames', async () => {
      const { ws } = await open(url)
      for (let i = 0; i < 5 && ws.readyState === ws.OPEN; i++) ws.send(randomBytes(100))
      seen('garbage', await closed(ws))
    })
    await during('disallowed Origin', async () => {
      // Let in only to be told why: closed at once with 4403 (the page cannot read a 403).
      const r = await open(url, { origin: 'https://evil.example' })
      seen('origin', r.refused ?? (await closed(r.ws)))
    })
    await during('unmapped document', async () => {
      const r = await open(wsUrl({ url: sidecarUrl }, randomUUID()))
      seen('unmapped', r.refused ?? 0)
    })
    // Flooders at full speed; each is cut off by the per-connection frame rate (1008) and replaced.
    let flooder: WebSocket | undefined
    await during('flood of valid frames', async () => {
      if (flooder === undefined || flooder.readyState !== flooder.OPEN) {
        const { ws } = await open(url)
        ws.once('close', (code) => seen('flood', code))
        flooder = ws
      }
      const sender = randomUUID()
      for (let i = 0; i < 100 && flooder.readyState === flooder.OPEN; i++)
        flooder.send(encodeEnvelope(envelopeOf(docId, sender, update(`flood ${i}`), 'awareness')))
      await new Promise((r) => setTimeout(r, 5))
    })
    // Slow readers: sockets that never read what the sidecar sends them (their TCP window fills).
    const slow: WebSocket[] = []
    await during('slow clients that never read', async () => {
      if (slow.length < 5) {
        const { ws } = await open(url)
        // ws keeps its net.Socket in `_socket`; pausing it stops reading at the TCP level.
        const socket = Reflect.get(ws, '_socket') as { pause(): void }
        socket.pause()
        slow.push(ws)
      }
      await new Promise((r) => setTimeout(r, 10))
    })
    const many: WebSocket[] = []
    await during('many connections at once', async () => {
      const batch = await Promise.all(Array.from({ length: 60 }, () => open(url)))
      for (const b of batch) {
        if (b.refused !== undefined) seen('many-refused', b.refused)
        else many.push(b.ws)
      }
      for (const ws of many.splice(0)) ws.terminate()
    })
    // Raw TCP connections that send half an upgrade request and stall.
    await during('half-open upgrade requests', async () => {
      const port = Number(new URL(sidecarUrl).port)
      const sockets = Array.from({ length: 20 }, () =>
        netConnect(port, '127.0.0.1', function (this: import('node:net').Socket) {
          this.write(`GET /v1/docs/${docId} HTTP/1.1\r\nHost: 127.0.0.1\r\n`)
        }),
      )
      await new Promise((r) => setTimeout(r, 50))
      for (const socket of sockets) socket.destroy()
    })

    expect(codes.get('oversize')?.every((c) => c === 1009)).toBe(true)
    expect(codes.get('text')?.every((c) => c === 1003)).toBe(true)
    expect(codes.get('wrong-doc')?.every((c) => c === 1008)).toBe(true)
    expect(codes.get('sender')?.every((c) => c === 1008)).toBe(true)
    expect(codes.get('garbage')?.every((c) => c === 1008)).toBe(true)
    expect(codes.get('origin')?.every((c) => c === 4403)).toBe(true)
    expect(codes.get('unmapped')?.every((c) => c === 404)).toBe(true)
    expect(codes.get('flood')?.length).toBeGreaterThan(0)
    expect(codes.get('flood')?.every((c) => c === 1008)).toBe(true)
    expect(codes.get('many-refused')?.every((c) => c === 503)).toBe(true)
    // And the probe is still served at the end.
    expect(await probe.roundTrip()).toBeGreaterThan(0)
    for (const ws of slow) ws.terminate()
  }, 120_000)
})
