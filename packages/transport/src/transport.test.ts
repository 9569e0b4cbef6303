import { ws } from 'msw'
import { setupServer } from 'msw/node'
import { WebSocket as NodeWebSocket } from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { CLOSE_CODES } from '@e2e-col/protocol'
import { WebSocketTransport, type NetworkEvents, type TransportEvents, type WebSocketConstructor } from './transport.ts'

// msw intercepts the global WebSocket; Node 20 has none, so give it ws's before msw patches it.
const g = globalThis as { WebSocket?: unknown }
g.WebSocket ??= NodeWebSocket

const URL_A = 'ws://sidecar.test/v1/docs/00000000-0000-4000-8000-000000000001'
const sidecar = ws.link(URL_A)
const server = setupServer()
const fast = { baseMs: 2, maxMs: 20, factor: 2 }
const transports: WebSocketTransport[] = []

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  for (const t of transports.splice(0)) t.stop()
  server.resetHandlers()
})
afterAll(() => server.close())

function create(extra: Partial<ConstructorParameters<typeof WebSocketTransport>[0]> = {}): WebSocketTransport {
  const t = new WebSocketTransport({
    url: URL_A,
    WebSocket: globalThis.WebSocket as unknown as WebSocketConstructor,
    backoff: fast,
    network: null,
    ...extra,
  })
  transports.push(t)
  return t
}

function next<K extends keyof TransportEvents>(t: WebSocketTransport, event: K): Promise<TransportEvents[K]> {
  return new Promise((resolve) => {
    const off = t.on(event, (value) => {
      off()
      resolve(value)
    })
  })
}

/** The sidecar closes the first connection with `code`; returns a count of the connections so far. */
function closeFirstWith(code: number, reason: string): () => number {
  let connections = 0
  server.use(
    sidecar.addEventListener('connection', ({ client }) => {
      connections += 1
      if (connections === 1) client.close(code, reason)
    }),
  )
  return () => connections
}

describe('WebSocketTransport (msw)', () => {
  test('sends binary frames and emits received binary frames as bytes', async () => {
    const received: Uint8Array[] = []
    server.use(
      sidecar.addEventListener('connection', ({ client }) => {
        client.addEventListener('message', (event) => {
          received.push(new Uint8Array(event.data as ArrayBuffer))
          client.send(new Uint8Array([7, 8, 9]))
        })
      }),
    )
    const t = create()
    const opened = next(t, 'open')
    t.start()
    expect(t.status).toBe('connecting')
    await opened
    expect(t.status).toBe('connected')
    const frame = next(t, 'frame')
    expect(t.send(new Uint8Array([1, 2, 3]))).toBe(true)
    expect([...(await frame)]).toEqual([7, 8, 9])
    expect(received.map((b) => [...b])).toEqual([[1, 2, 3]])
    expect(t.sendSequence).toBe(1)
  })

  test('ignores text frames, which are not part of the browser protocol', async () => {
    server.use(
      sidecar.addEventListener('connection', ({ client }) => {
        client.send('hello')
        client.send(new Uint8Array([1]))
      }),
    )
    const t = create()
    const frames: Uint8Array[] = []
    t.on('frame', (f) => frames.push(f))
    const first = next(t, 'frame')
    t.start()
    await first
    expect(frames.map((f) => [...f])).toEqual([[1]])
  })

  test('close code 4409 raises recoveryRequired once, then reconnects', async () => {
    const connections = closeFirstWith(4409, 'history at risk')
    const t = create()
    const recovery = next(t, 'recoveryRequired')
    const closed = next(t, 'close')
    t.start()
    expect(await closed).toMatchObject({
      code: 4409,
      reason: 'history at risk',
      event: expect.objectContaining({ code: 4409 }),
    })
    expect(await recovery).toEqual({ reason: 'sidecar-history-risk', sendSequence: 0 })
    const reopened = await next(t, 'open')
    expect(reopened.attempt).toBe(1)
    expect(connections()).toBe(2)
  })

  test('close code 1011 reconnects without asking for recovery', async () => {
    let connections = 0
    server.use(
      sidecar.addEventListener('connection', ({ client }) => {
        connections += 1
        // Fail the first connection's first send, as a sidecar does when Signal answers ambiguously.
        if (connections === 1) client.addEventListener('message', () => client.close(1011, 'ambiguous send failure'))
      }),
    )
    const t = create()
    t.on('open', () => t.send(new Uint8Array([1])))
    let recoveries = 0
    t.on('recoveryRequired', () => {
      recoveries += 1
    })
    const statuses: string[] = []
    t.on('status', (s) => statuses.push(s))
    t.start()
    await next(t, 'close')
    await next(t, 'open')
    expect(recoveries).toBe(0)
    expect(statuses).toEqual(['connecting', 'connected', 'offline', 'connecting', 'connected'])
  })

  test('send returns false while not connected, so the caller keeps the frame', () => {
    const t = create()
    expect(t.send(new Uint8Array([1]))).toBe(false)
    expect(t.sendSequence).toBe(0)
  })

  test('after stop, send throws TRANSPORT_CLOSED and no reconnect happens', async () => {
    let connections = 0
    server.use(
      sidecar.addEventListener('connection', () => {
        connections += 1
      }),
    )
    const t = create()
    t.start()
    await next(t, 'open')
    t.stop()
    expect(t.status).toBe('offline')
    expect(() => t.send(new Uint8Array([1]))).toThrow(expect.objectContaining({ code: 'TRANSPORT_CLOSED' }))
    await new Promise((r) => setTimeout(r, 30)) // longer than the whole backoff cap: prove nothing reconnects
    expect(connections).toBe(1)
  })

  test('rejects a non-WebSocket URL with TRANSPORT_BAD_URL', () => {
    expect(() => create({ url: 'http://sidecar.test/v1/docs/x' })).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_BAD_URL' }),
    )
    expect(() => create({ url: 'not a url' })).toThrow(expect.objectContaining({ code: 'TRANSPORT_BAD_URL' }))
  })

  test('goes offline on the browser offline event and reconnects at once on online', async () => {
    server.use(sidecar.addEventListener('connection', () => {}))
    const network = new EventTarget() as EventTarget & NetworkEvents
    let online = true
    const t = create({ network, isOnline: () => online, backoff: { baseMs: 60_000, maxMs: 60_000, factor: 1 } })
    t.start()
    await next(t, 'open')
    online = false
    network.dispatchEvent(new Event('offline'))
    expect(t.status).toBe('offline')
    expect(t.send(new Uint8Array([1]))).toBe(false)
    // With a 60 s backoff, only the online event can bring the connection back this fast.
    const reopened = next(t, 'open')
    online = true
    network.dispatchEvent(new Event('online'))
    await reopened
    expect(t.status).toBe('connected')
  })

  test('does not connect while the browser reports no network', async () => {
    const network = new EventTarget() as EventTarget & NetworkEvents
    let connections = 0
    server.use(
      sidecar.addEventListener('connection', () => {
        connections += 1
      }),
    )
    const t = create({ network, isOnline: () => false })
    t.start()
    expect(t.status).toBe('offline')
    await new Promise((r) => setTimeout(r, 30))
    expect(connections).toBe(0)
  })

  test('without a shouldReconnect of its own, a refused origin (4403) halts; any other close retries', async () => {
    const refused = closeFirstWith(CLOSE_CODES.ORIGIN_NOT_ALLOWED, 'https://x.example is not allowed')
    const t = create({})
    const halted = next(t, 'halted')
    t.start()
    expect(await halted).toEqual({ code: 4403, reason: 'https://x.example is not allowed' })
    await new Promise((r) => setTimeout(r, 60)) // several backoff delays (2–20 ms)
    expect(refused()).toBe(1)
    t.stop()
    const other = closeFirstWith(4400, 'something else')
    const u = create({})
    const reopened = next(u, 'open')
    u.start()
    await reopened
    expect(other()).toBe(2)
    u.stop()
  })

  test('a close shouldReconnect refuses halts the transport: halted, offline, no retry until reconnectNow', async () => {
    const connections = closeFirstWith(4403, 'forbidden')
    const asked: number[] = []
    const t = create({
      shouldReconnect: ({ code, event }) => {
        asked.push(code)
        return (event as { code: number }).code !== 4403
      },
    })
    const halted = next(t, 'halted')
    t.start()
    expect(await halted).toEqual({ code: 4403, reason: 'forbidden' })
    expect(asked).toEqual([4403])
    expect(t.status).toBe('offline')
    await new Promise((r) => setTimeout(r, 60)) // several backoff delays (2–20 ms)
    expect(connections()).toBe(1)
    const reopened = next(t, 'open')
    t.reconnectNow()
    await reopened
    expect(connections()).toBe(2)
  })

  test('reports each attempt, its opening and a close this side made with a null event', async () => {
    server.use(sidecar.addEventListener('connection', () => undefined))
    const t = create()
    const events: string[] = []
    t.on('attempt', ({ attempt }) => events.push(`attempt ${attempt}`))
    t.on('open', () => events.push('open'))
    t.on('close', ({ reason, event }) => events.push(`close ${reason} ${event === null ? 'null' : 'event'}`))
    const opened = next(t, 'open')
    t.start()
    await opened
    t.stop()
    expect(events).toEqual(['attempt 0', 'open', 'close client stopped null'])
  })

  test('passes the subprotocols to the WebSocket constructor', () => {
    const made: unknown[][] = []
    const Spy = function (this: unknown, ...args: unknown[]) {
      made.push(args)
      throw new Error('not connecting in this test')
    } as unknown as WebSocketConstructor
    create({ WebSocket: Spy, protocols: ['yjs', 'e2e'] }).start()
    create({ WebSocket: Spy }).start()
    expect(made).toEqual([[URL_A, ['yjs', 'e2e']], [URL_A]])
  })
})
