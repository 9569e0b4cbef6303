/**
 * WebSocketTransport's timing and lifecycle rules on vitest's fake clock, against a scripted socket
 * (a unit test of this one module): the connect timeout, when the backoff counter resets, the
 * default delays, stale sockets, stop and reconnectNow in every state, the network following.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { WebSocketTransport, type NetworkEvents, type TransportOptions, type WebSocketLike } from './transport.ts'

const URL_A = 'ws://sidecar.test/v1/docs/00000000-0000-4000-8000-000000000001'

type Listener = (event: never) => void

/** A WebSocket the test drives: `opened()`, `closed()`, `receive()`, `fail()`. */
class ScriptedSocket implements WebSocketLike {
  static made: ScriptedSocket[] = []
  binaryType = 'blob'
  readyState = 0
  readonly url: string
  readonly sent: Uint8Array[] = []
  readonly closes: { code?: number | undefined; reason?: string | undefined }[] = []
  throwOnClose = false
  readonly #listeners = new Map<string, Listener[]>()

  constructor(url: string) {
    this.url = url
    ScriptedSocket.made.push(this)
  }

  send(data: Uint8Array): void {
    this.sent.push(data)
  }

  close(code?: number, reason?: string): void {
    this.closes.push({ code, reason })
    if (this.throwOnClose) throw new Error('still connecting')
  }

  addEventListener(type: string, listener: Listener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener])
  }

  #dispatch(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? []) (listener as (e: unknown) => void)(event)
  }

  opened(): void {
    this.readyState = 1
    this.#dispatch('open', {})
  }

  closed(code: number, reason = ''): void {
    this.readyState = 3
    this.#dispatch('close', { code, reason })
  }

  receive(data: unknown): void {
    this.#dispatch('message', { data })
  }

  fail(): void {
    this.#dispatch('error', { type: 'error' })
  }
}

/** The socket made last; fails the test when there is none. */
function last(): ScriptedSocket {
  const socket = ScriptedSocket.made.at(-1)
  if (socket === undefined) throw new Error('no socket was made')
  return socket
}

/** A network whose online/offline the test fires, counting its listeners. */
function network(): NetworkEvents & { fire(type: 'online' | 'offline'): void; listeners(): number } {
  const listeners = { online: new Set<() => void>(), offline: new Set<() => void>() }
  return {
    addEventListener: (type, listener) => listeners[type].add(listener),
    removeEventListener: (type, listener) => listeners[type].delete(listener),
    fire: (type) => {
      for (const listener of listeners[type]) listener()
    },
    listeners: () => listeners.online.size + listeners.offline.size,
  }
}

const transports: WebSocketTransport[] = []
function create(extra: Partial<TransportOptions> = {}): WebSocketTransport {
  const t = new WebSocketTransport({
    url: URL_A,
    WebSocket: ScriptedSocket,
    backoff: { baseMs: 100, maxMs: 1_000, factor: 2 },
    random: () => 0,
    network: null,
    ...extra,
  })
  transports.push(t)
  return t
}

/** Every event the transport emits, as short lines. */
function record(t: WebSocketTransport): string[] {
  const log: string[] = []
  t.on('attempt', ({ attempt }) => log.push(`attempt ${attempt}`))
  t.on('open', ({ attempt }) => log.push(`open ${attempt}`))
  t.on('status', (s) => log.push(`status ${s}`))
  t.on('close', ({ code, reason, event }) => log.push(`close ${code} ${reason} ${event === null ? 'null' : 'event'}`))
  t.on('error', () => log.push('error'))
  t.on('halted', ({ code }) => log.push(`halted ${code}`))
  t.on('frame', (f) => log.push(`frame ${[...f].join(',')}`))
  return log
}

beforeEach(() => {
  vi.useFakeTimers()
  ScriptedSocket.made = []
})
afterEach(() => {
  for (const t of transports.splice(0)) t.stop()
  vi.useRealTimers()
})

/** Closes the first socket at once, opens the second (attempt 1), keeps it open `openMs`, closes it; returns the retry delay then used. */
function retryDelayAfterOpenFor(t: WebSocketTransport, openMs: number): number {
  ScriptedSocket.made = []
  t.start()
  last().closed(1006) // attempt 0 failed: the next socket is attempt 1, after nextDelay(0) = 50 ms
  vi.advanceTimersByTime(50)
  expect(ScriptedSocket.made).toHaveLength(2)
  last().opened()
  vi.advanceTimersByTime(openMs)
  last().closed(1011)
  const made = ScriptedSocket.made.length
  let waited = 0
  while (ScriptedSocket.made.length === made && waited < 10_000) {
    vi.advanceTimersByTime(1)
    waited += 1
  }
  t.stop()
  return waited
}

describe('WebSocketTransport on a fake clock', () => {
  test('opens an arraybuffer socket at the document URL and reports attempt, connecting, open', () => {
    const t = create()
    const log = record(t)
    t.start()
    expect(last().url).toBe(URL_A)
    expect(last().binaryType).toBe('arraybuffer')
    expect(t.socket).toBe(last())
    last().opened()
    expect(log).toEqual(['status connecting', 'attempt 0', 'status connected', 'open 0'])
    expect(t.status).toBe('connected')
  })

  test('abandons an attempt that has not opened after connectTimeoutMs, closing it, retries after the backoff, and ignores it from then on', () => {
    const t = create({ connectTimeoutMs: 3_000 })
    const log = record(t)
    t.start()
    const first = last()
    vi.advanceTimersByTime(2_999)
    expect(first.closes).toEqual([])
    vi.advanceTimersByTime(1)
    expect(first.closes).toEqual([{ code: 1000, reason: 'connect timeout' }])
    expect(t.socket).toBeNull()
    expect(t.status).toBe('offline')
    // attempt 0 failed: the next comes after nextDelay(0) = 50 ms (random 0, base 100)
    vi.advanceTimersByTime(49)
    expect(ScriptedSocket.made).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(ScriptedSocket.made).toHaveLength(2)
    expect(log).toEqual([
      'status connecting',
      'attempt 0',
      'close 1000 connect timeout null',
      'status offline',
      'status connecting',
      'attempt 1',
    ])
    // The abandoned socket reporting anything late changes nothing.
    const before = [...log]
    first.opened()
    first.receive(new Uint8Array([1]).buffer)
    first.fail()
    first.closed(1011)
    expect(log).toEqual(before)
    expect(t.status).toBe('connecting')
  })

  test('the connect timeout defaults to 10 s and does not fire once the socket opened', () => {
    const t = create()
    t.start()
    vi.advanceTimersByTime(9_999)
    expect(last().closes).toEqual([])
    vi.advanceTimersByTime(1)
    expect(last().closes).toEqual([{ code: 1000, reason: 'connect timeout' }])

    const u = create()
    u.start()
    last().opened()
    vi.advanceTimersByTime(60_000)
    expect(last().closes).toEqual([])
    expect(u.status).toBe('connected')
  })

  test('the backoff counter resets after stableAfterMs open (default 5 s), not before', () => {
    expect(retryDelayAfterOpenFor(create(), 4_999)).toBe(100) // nextDelay(1): not reset
    expect(retryDelayAfterOpenFor(create(), 5_000)).toBe(50) // nextDelay(0): reset
  })

  test('a custom stableAfterMs is used', () => {
    expect(retryDelayAfterOpenFor(create({ stableAfterMs: 200 }), 199)).toBe(100)
    expect(retryDelayAfterOpenFor(create({ stableAfterMs: 200 }), 200)).toBe(50)
  })

  test('without backoff or random options, the first retry waits 125–250 ms from Math.random', () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0)
    const t = new WebSocketTransport({ url: URL_A, WebSocket: ScriptedSocket, network: null })
    transports.push(t)
    t.start()
    last().closed(1006)
    vi.advanceTimersByTime(124)
    expect(ScriptedSocket.made).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(ScriptedSocket.made).toHaveLength(2)
    expect(random).toHaveBeenCalled()
    random.mockRestore()
  })

  test('uses the random source it is given for the jitter', () => {
    const t = create({ random: () => 0.5 })
    t.start()
    last().closed(1006)
    vi.advanceTimersByTime(74) // 50 + 0.5 · 50 = 75
    expect(ScriptedSocket.made).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(ScriptedSocket.made).toHaveLength(2)
  })

  test('a constructor that throws counts as a refused attempt: offline, retried with growing delays', () => {
    let calls = 0
    const Refusing = function (this: unknown, url: string) {
      calls += 1
      if (calls < 3) throw new Error('blocked port')
      return new ScriptedSocket(url)
    } as unknown as TransportOptions['WebSocket']
    const t = create({ WebSocket: Refusing })
    const log = record(t)
    t.start()
    expect(t.status).toBe('offline')
    expect(t.socket).toBeNull()
    vi.advanceTimersByTime(50)
    expect(calls).toBe(2)
    vi.advanceTimersByTime(99)
    expect(calls).toBe(2)
    vi.advanceTimersByTime(1)
    expect(calls).toBe(3)
    last().opened()
    expect(log.filter((l) => l.startsWith('attempt') || l.startsWith('open'))).toEqual([
      'attempt 0',
      'attempt 1',
      'attempt 2',
      'open 2',
    ])
  })

  test('emits frames from ArrayBuffers and from views, honouring the view offset; ignores anything else', () => {
    const t = create()
    const log = record(t)
    t.start()
    last().opened()
    last().receive(new Uint8Array([1, 2]).buffer)
    last().receive(new Uint8Array([9, 3, 4, 9]).subarray(1, 3))
    last().receive(new DataView(new Uint8Array([9, 9, 5]).buffer, 2, 1))
    last().receive('text')
    last().receive(null)
    expect(log.filter((l) => l.startsWith('frame'))).toEqual(['frame 1,2', 'frame 3,4', 'frame 5'])
  })

  test("reports the socket's error event, and the close that follows with the runtime's event", () => {
    const t = create()
    const log = record(t)
    t.start()
    last().opened()
    let errorEvent: unknown
    t.on('error', ({ event }) => (errorEvent = event))
    last().fail()
    expect(errorEvent).toEqual({ type: 'error' })
    last().closed(1006, 'gone')
    expect(log.slice(-5)).toEqual(['status connected', 'open 0', 'error', 'close 1006 gone event', 'status offline'])
    expect(t.status).toBe('offline')
  })

  test('status goes offline once on a close, and not again when it already was', () => {
    const t = create({ connectTimeoutMs: 100 })
    const statuses: string[] = []
    t.on('status', (s) => statuses.push(s))
    t.start()
    last().opened()
    last().closed(1011)
    expect(statuses).toEqual(['connecting', 'connected', 'offline'])
    // A close listener already reads offline.
    let seen = ''
    t.on('close', () => (seen = t.status))
    vi.advanceTimersByTime(50)
    last().closed(1006)
    expect(seen).toBe('offline')
    expect(statuses).toEqual(['connecting', 'connected', 'offline', 'connecting', 'offline'])
  })

  test('a server close while the network is down waits for online instead of retrying', () => {
    let online = true
    const net = network()
    const t = create({ network: net, isOnline: () => online })
    t.start()
    last().opened()
    online = false
    last().closed(1011)
    expect(t.status).toBe('offline')
    vi.advanceTimersByTime(10_000)
    expect(ScriptedSocket.made).toHaveLength(1)
    online = true
    net.fire('online')
    expect(ScriptedSocket.made).toHaveLength(2)
    expect(t.status).toBe('connecting')
  })

  test('a retry whose timer fires while the network is down does not connect', () => {
    let online = true
    const t = create({ network: network(), isOnline: () => online })
    t.start()
    last().closed(1006)
    online = false
    vi.advanceTimersByTime(10_000)
    expect(ScriptedSocket.made).toHaveLength(1)
    expect(t.status).toBe('offline')
  })

  test('online does nothing while a socket exists or after stop; offline drops the socket and cancels a retry', () => {
    const net = network()
    const t = create({ network: net })
    t.start()
    net.fire('online')
    expect(ScriptedSocket.made).toHaveLength(1)
    const log = record(t)
    net.fire('offline')
    expect(last().closes).toEqual([{ code: 1000, reason: 'network offline' }])
    expect(log).toEqual(['close 1000 network offline null', 'status offline'])
    // A pending retry is cancelled by offline too.
    net.fire('online')
    last().closed(1006)
    net.fire('offline')
    vi.advanceTimersByTime(10_000)
    expect(ScriptedSocket.made).toHaveLength(2)
    t.stop()
    net.fire('online')
    net.fire('offline')
    expect(ScriptedSocket.made).toHaveLength(2)
  })

  test('start follows the network and stop lets it go; both are idempotent', () => {
    const net = network()
    const t = create({ network: net })
    t.start()
    t.start()
    expect(net.listeners()).toBe(2)
    expect(ScriptedSocket.made).toHaveLength(1)
    const log = record(t)
    t.stop()
    t.stop()
    expect(net.listeners()).toBe(0)
    expect(last().closes).toEqual([{ code: 1000, reason: 'client stopped' }])
    expect(log).toEqual(['close 1000 client stopped null', 'status offline'])
    t.start()
    expect(ScriptedSocket.made).toHaveLength(1)
  })

  test('stop cancels a pending retry and a close arriving afterwards changes nothing', () => {
    const t = create()
    t.start()
    const first = last()
    first.opened()
    first.closed(1011)
    t.stop()
    vi.advanceTimersByTime(10_000)
    expect(ScriptedSocket.made).toHaveLength(1)
    expect(t.status).toBe('offline')
  })

  test('stop while a socket is still connecting survives a close() that throws', () => {
    const t = create()
    t.start()
    last().throwOnClose = true
    expect(() => t.stop()).not.toThrow()
    expect(last().closes).toHaveLength(1)
    expect(t.status).toBe('offline')
  })

  test('a close the server makes after stop is not reported and asks for no retry', () => {
    const t = create()
    t.start()
    const s = last()
    s.opened()
    const log = record(t)
    t.stop()
    s.closed(1000, 'bye')
    vi.advanceTimersByTime(10_000)
    expect(log).toEqual(['close 1000 client stopped null', 'status offline'])
    expect(ScriptedSocket.made).toHaveLength(1)
  })

  test('reconnectNow connects only when started, not stopped and without a socket', () => {
    const t = create()
    t.reconnectNow()
    expect(ScriptedSocket.made).toHaveLength(0)
    t.start()
    t.reconnectNow()
    expect(ScriptedSocket.made).toHaveLength(1)
    last().closed(1006)
    t.reconnectNow() // skips the pending retry delay
    expect(ScriptedSocket.made).toHaveLength(2)
    vi.advanceTimersByTime(10_000) // the skipped retry does not connect a third time
    expect(ScriptedSocket.made).toHaveLength(2)
    t.stop()
    t.reconnectNow()
    expect(ScriptedSocket.made).toHaveLength(2)
  })

  test('a halt stops every timer: no retry and no backoff reset while halted', () => {
    const t = create({ shouldReconnect: ({ code }) => code !== 4000, stableAfterMs: 100 })
    const log = record(t)
    t.start()
    last().closed(1006) // attempt 0 failed: the next is attempt 1
    vi.advanceTimersByTime(50)
    last().opened()
    last().closed(4000, 'no')
    vi.advanceTimersByTime(10_000) // past stableAfterMs: a live timer would have reset the counter
    expect(ScriptedSocket.made).toHaveLength(2)
    expect(log.slice(-3)).toEqual(['close 4000 no event', 'status offline', 'halted 4000'])
    expect(t.status).toBe('offline')
    t.reconnectNow()
    expect(log.at(-1)).toBe('attempt 1')
  })

  test('is offline before start, and starting without a network says so without a status event', () => {
    const t = create({ isOnline: () => false })
    expect(t.status).toBe('offline')
    const log = record(t)
    t.start()
    expect(log).toEqual([])
    expect(ScriptedSocket.made).toHaveLength(0)
  })

  test('accepts wss: as well as ws:, and says why it refuses other URLs', () => {
    expect(() => create({ url: 'wss://sidecar.test/v1/docs/x' })).not.toThrow()
    expect(() => create({ url: 'https://sidecar.test/v1/docs/x' })).toThrow(
      expect.objectContaining({
        name: 'TransportError',
        code: 'TRANSPORT_BAD_URL',
        message: 'sidecar URL must be ws: or wss:, got https:',
      }),
    )
    let refused: unknown
    try {
      create({ url: 'not a url' })
    } catch (error) {
      refused = error
    }
    expect(refused).toMatchObject({ code: 'TRANSPORT_BAD_URL', message: 'sidecar URL is not a valid URL' })
    expect((refused as Error).cause).toBeInstanceOf(TypeError)
  })

  test('send after stop throws TRANSPORT_CLOSED saying the transport was stopped', () => {
    const t = create()
    t.stop()
    expect(() => t.send(new Uint8Array([1]))).toThrow(
      expect.objectContaining({ name: 'TransportError', code: 'TRANSPORT_CLOSED', message: 'transport was stopped' }),
    )
  })

  test('stopping while waiting out a retry reports no close (there is no socket to close)', () => {
    const t = create()
    t.start()
    last().closed(1006)
    const log = record(t)
    t.stop()
    expect(log).toEqual([])
  })

  test('a close listener that stops the transport gets no reconnect', () => {
    const t = create()
    t.on('close', () => t.stop())
    t.start()
    last().opened()
    last().closed(1011)
    vi.advanceTimersByTime(10_000)
    expect(ScriptedSocket.made).toHaveLength(1)
  })

  test("follows the page's window and navigator.onLine when no network is given", () => {
    const page = new EventTarget()
    const navigatorState = { onLine: false }
    vi.stubGlobal('window', page)
    vi.stubGlobal('navigator', navigatorState)
    try {
      const t = new WebSocketTransport({ url: URL_A, WebSocket: ScriptedSocket, random: () => 0 })
      transports.push(t)
      t.start()
      expect(ScriptedSocket.made).toHaveLength(0) // navigator says offline
      navigatorState.onLine = true
      page.dispatchEvent(new Event('online'))
      expect(ScriptedSocket.made).toHaveLength(1)
      last().opened()
      page.dispatchEvent(new Event('offline'))
      expect(last().closes).toEqual([{ code: 1000, reason: 'network offline' }])
      t.stop()
      page.dispatchEvent(new Event('online'))
      expect(ScriptedSocket.made).toHaveLength(1)
    } finally {
      vi.unstubAllGlobals()
    }
  })

  test('a window without addEventListener is no network to follow', () => {
    vi.stubGlobal('window', {})
    try {
      const t = new WebSocketTransport({ url: URL_A, WebSocket: ScriptedSocket })
      transports.push(t)
      expect(() => t.start()).not.toThrow()
      expect(ScriptedSocket.made).toHaveLength(1)
    } finally {
      vi.unstubAllGlobals()
    }
  })

  test('send hands frames only to an open socket and counts them', () => {
    const t = create()
    t.start()
    expect(t.send(new Uint8Array([1]))).toBe(false)
    last().opened()
    expect(t.send(new Uint8Array([2]))).toBe(true)
    last().readyState = 2 // closing
    expect(t.send(new Uint8Array([3]))).toBe(false)
    expect(last().sent.map((f) => [...f])).toEqual([[2]])
    expect(t.sendSequence).toBe(1)
  })
  test('a socket that closes unopened while the network is down: no retry is counted, now or at its connect timeout', () => {
    let online = true
    const net = network()
    const t = create({ network: net, isOnline: () => online })
    const attempts: number[] = []
    t.on('attempt', ({ attempt }) => attempts.push(attempt))
    t.start()
    online = false
    last().closed(1006)
    vi.advanceTimersByTime(20_000) // past the 10 s connect timeout of that socket
    online = true
    net.fire('online')
    expect(attempts).toEqual([0, 0])
  })

  test('navigator.onLine true at start connects at once', () => {
    vi.stubGlobal('navigator', { onLine: true })
    try {
      const t = new WebSocketTransport({ url: URL_A, WebSocket: ScriptedSocket, network: null })
      transports.push(t)
      t.start()
      expect(ScriptedSocket.made).toHaveLength(1)
    } finally {
      vi.unstubAllGlobals()
    }
  })

  test('a transport a close listener stopped reports no halt', () => {
    const t = create({ shouldReconnect: () => false })
    const log = record(t)
    t.on('close', () => t.stop())
    t.start()
    last().closed(4000, 'no')
    expect(log).toEqual(['status connecting', 'attempt 0', 'close 4000 no event', 'status offline'])
  })

  test('a close listener that reconnects at once keeps that one socket: no retry on top, status connecting', () => {
    const t = create()
    const statuses: string[] = []
    t.on('status', (s) => statuses.push(s))
    t.start()
    last().opened()
    const off = t.on('close', () => t.reconnectNow())
    last().closed(1011)
    off()
    expect(ScriptedSocket.made).toHaveLength(2)
    expect(t.status).toBe('connecting')
    vi.advanceTimersByTime(1_000) // past any backoff: no third socket
    expect(ScriptedSocket.made).toHaveLength(2)
    last().opened()
    expect(statuses).toEqual(['connecting', 'connected', 'connecting', 'connected'])
  })

  test('when the network goes away and a close listener reconnects at once, offline is reported once', () => {
    const net = network()
    const t = create({ network: net })
    const statuses: string[] = []
    t.start()
    last().opened()
    t.on('status', (s) => statuses.push(s))
    const off = t.on('close', () => t.reconnectNow())
    net.fire('offline')
    off()
    expect(statuses).toEqual(['connecting', 'offline'])
  })
})
