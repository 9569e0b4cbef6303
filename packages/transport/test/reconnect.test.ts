import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { WebSocket, WebSocketServer } from 'ws'
import { afterEach, describe, expect, test } from 'vitest'
import { WebSocketTransport, type WebSocketConstructor } from '../src/index.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (let c = cleanups.pop(); c !== undefined; c = cleanups.pop()) await c()
})

async function listen(port = 0): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port })
  await once(wss, 'listening')
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate()
        wss.close(() => resolve())
      }),
  )
  return wss
}

function transportFor(port: number, options: { stableAfterMs?: number } = {}): WebSocketTransport {
  const t = new WebSocketTransport({
    url: `ws://127.0.0.1:${port}/v1/docs/00000000-0000-4000-8000-000000000001`,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    backoff: { baseMs: 10, maxMs: 200, factor: 2 },
    random: () => 0,
    network: null,
    ...options,
  })
  cleanups.push(() => t.stop())
  return t
}

function opens(t: WebSocketTransport, count: number): Promise<number[]> {
  const attempts: number[] = []
  return new Promise((resolve) => {
    const off = t.on('open', ({ attempt }) => {
      attempts.push(attempt)
      if (attempts.length === count) {
        off()
        resolve(attempts)
      }
    })
  })
}

describe('reconnect against a real ws server', () => {
  test('a sidecar that accepts and closes at once is retried with growing delays, never reset to zero', async () => {
    const wss = await listen()
    wss.on('connection', (socket) => socket.close(1008, 'refused'))
    const t = transportFor((wss.address() as AddressInfo).port, { stableAfterMs: 10_000 })
    const seen = opens(t, 4)
    t.start()
    expect(await seen).toEqual([0, 1, 2, 3])
  })

  test('a connection that stayed up resets the backoff', async () => {
    const wss = await listen()
    // Each connection lives well beyond stableAfterMs, then the sidecar drops it.
    wss.on('connection', (socket) => setTimeout(() => socket.close(1011, 'ambiguous'), 60))
    const t = transportFor((wss.address() as AddressInfo).port, { stableAfterMs: 20 })
    const seen = opens(t, 3)
    t.start()
    expect(await seen).toEqual([0, 1, 1])
  })

  test('keeps retrying while the sidecar is down and connects when it comes back', async () => {
    const first = await listen()
    const port = (first.address() as AddressInfo).port
    await new Promise<void>((resolve) => first.close(() => resolve()))
    const t = transportFor(port)
    const statuses: string[] = []
    t.on('status', (s) => statuses.push(s))
    let refused = 0
    const downFor = new Promise<void>((resolve) =>
      t.on('close', () => {
        refused += 1
        if (refused === 3) resolve()
      }),
    )
    t.start()
    await downFor
    expect(t.status).not.toBe('connected')
    const opened = opens(t, 1)
    const second = await listen(port)
    const received = new Promise<Buffer>((resolve) =>
      second.on('connection', (socket) => socket.on('message', (data: Buffer) => resolve(data))),
    )
    const [attempt] = await opened
    expect(attempt).toBeGreaterThanOrEqual(3)
    expect(t.send(new Uint8Array([42]))).toBe(true)
    expect([...(await received)]).toEqual([42])
    expect(statuses.slice(0, 2)).toEqual(['connecting', 'offline'])
    expect(statuses.at(-1)).toBe('connected')
  })

  test('4409 from a real server yields recoveryRequired with the local send count', async () => {
    const wss = await listen()
    let n = 0
    wss.on('connection', (socket) => {
      n += 1
      if (n === 1) socket.on('message', () => socket.close(4409, 'history at risk'))
    })
    const t = transportFor((wss.address() as AddressInfo).port)
    t.on('open', () => t.send(new Uint8Array([1, 2])))
    const recovery = new Promise((resolve) => t.on('recoveryRequired', resolve))
    t.start()
    expect(await recovery).toEqual({ reason: 'sidecar-history-risk', sendSequence: 1 })
  })
})
