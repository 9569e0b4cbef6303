/**
 * E2eColProvider's options and events as y-websocket code reads them, against a simulated sidecar
 * (or a WebSocket class that only records how it was called): URLs, defaults, the polyfill, the
 * reconnect delays `maxBackoffTime` bounds, the close codes that stop retrying, `resyncInterval`,
 * the awareness option, and the events and counters of a connection's life.
 */
import { encodeEnvelope } from '@e2e-col/protocol'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import { applyAwarenessUpdate, Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createMemoryStorage, E2eColProvider, type E2eColProviderOptions } from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'
import { nodeProviderOptions } from './provider-fixture.ts'
import { startRelay, type Relay } from './sim-relay.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

function provider(
  serverUrl: string,
  options: E2eColProviderOptions = {},
  base: E2eColProviderOptions = nodeProviderOptions(),
): E2eColProvider {
  const p = new E2eColProvider(serverUrl, DOC_ID, new Y.Doc(), { ...base, ...options })
  cleanups.push(async () => {
    p.destroy()
    await p.whenDestroyed
  })
  return p
}

async function open(options: E2eColProviderOptions = {}): Promise<{ relay: Relay; provider: E2eColProvider }> {
  const relay = await startRelay()
  cleanups.push(() => relay.close())
  return { relay, provider: provider(relay.url, options) }
}

/** Waits until `check` holds; fails naming `what`. */
const until = (what: string, check: () => boolean): Promise<void> =>
  vi.waitFor(() => expect(check(), what).toBe(true), { timeout: 10_000, interval: 5 })

/** A WebSocket class that records each construction and refuses it (a blocked port). */
function refusingSocket(): { made: { url: string; protocols: unknown; at: number }[]; Socket: WebSocketConstructor } {
  const made: { url: string; protocols: unknown; at: number }[] = []
  const Socket = function (url: string, protocols?: unknown) {
    made.push({ url, protocols, at: Date.now() })
    throw new Error('refused')
  } as unknown as WebSocketConstructor
  return { made, Socket }
}

/** With fake timers: the gaps between the first `count` attempts of a provider whose sockets are all refused. */
async function refusedAttemptGaps(options: E2eColProviderOptions, count: number): Promise<number[]> {
  const { made, Socket } = refusingSocket()
  provider('ws://127.0.0.1:9', { ...options, WebSocketPolyfill: Socket, random: () => 0 })
  while (made.length < count) await vi.advanceTimersByTimeAsync(10)
  return made.slice(1).map((m, i) => m.at - (made[i]?.at ?? 0))
}

/** The sidecar's answer to the page's sync request: its copy of the document (here empty). */
function sidecarCopyArrives(relay: Relay): void {
  relay.sockets(DOC_ID)[0]?.send(
    encodeEnvelope({
      kind: 'sync-response',
      flags: 0,
      docId: DOC_ID,
      senderId: '22222222-2222-4222-8222-222222222222',
      messageId: 'ab'.repeat(16),
      seq: 0,
      payload: Y.encodeStateAsUpdate(new Y.Doc()),
    }),
  )
}

describe("E2eColProvider, y-websocket's options", () => {
  test('serverUrl loses its trailing slashes; url is serverUrl/v1/docs/room; the defaults are y-websocket’s', () => {
    const p = provider('ws://127.0.0.1:9/base//', { connect: false })
    expect(p.serverUrl).toBe('ws://127.0.0.1:9/base')
    expect(p.url).toBe(`ws://127.0.0.1:9/base/v1/docs/${DOC_ID}`)
    expect(p.roomname).toBe(DOC_ID)
    expect(p.params).toEqual({})
    expect(p.protocols).toEqual([])
    expect(p.disableBc).toBe(false)
    expect(p.bcconnected).toBe(false)
    expect(p.maxBackoffTime).toBe(2500)
    expect(p.shouldConnect).toBe(false)
    expect(p.wsconnected).toBe(false)
    expect(p.wsconnecting).toBe(false)
    expect(p.ws).toBeNull()
    expect(p.wsLastMessageReceived).toBe(0)
    expect(p.synced).toBe(false)
    const q = provider('ws://127.0.0.1:9', { connect: false, disableBc: true, maxBackoffTime: 700, protocols: ['a'] })
    expect([q.disableBc, q.maxBackoffTime, q.protocols]).toEqual([true, 700, ['a']])
  })

  test('WebSocketPolyfill is the class constructed (it wins over WebSocket), with the protocols given', async () => {
    const polyfill = refusingSocket()
    const other = refusingSocket()
    const p = provider('ws://127.0.0.1:9', {
      WebSocketPolyfill: polyfill.Socket,
      WebSocket: other.Socket,
      protocols: ['yjs'],
    })
    await until('an attempt', () => polyfill.made.length > 0)
    expect(polyfill.made[0]).toMatchObject({ url: p.url, protocols: ['yjs'] })
    expect(other.made).toEqual([])
    const plain = refusingSocket()
    provider('ws://127.0.0.1:9', { WebSocketPolyfill: undefined, WebSocket: plain.Socket })
    await until('an attempt with WebSocket', () => plain.made.length > 0)
    expect(plain.made[0]?.protocols).toBeUndefined()
  })

  test('reconnect delays are 100 ms · 2ⁿ (half jittered), capped at maxBackoffTime (default 2.5 s)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    expect(await refusedAttemptGaps({}, 7)).toEqual([100, 200, 400, 800, 1250, 1250])
    expect(await refusedAttemptGaps({ maxBackoffTime: 300 }, 4)).toEqual([100, 150, 150])
    // A transport backoff of its own wins over maxBackoffTime.
    expect(
      await refusedAttemptGaps(
        { maxBackoffTime: 300, transport: { network: null, backoff: { baseMs: 40, maxMs: 40, factor: 1 } } },
        3,
      ),
    ).toEqual([20, 20])
  })

  test('a close in 4400–4499 stops retrying (closed), one outside it reconnects', async () => {
    const { relay, provider: p } = await open()
    const closed: number[] = []
    p.on('closed', ({ code }) => closed.push(code))
    // Each connection sends one sync-request when it opens. A close goes out only once the relay
    // holds the current connection's request: one still on its way when the socket closed would
    // otherwise read as the next connection's.
    const opens = (): number => relay.received.filter((e) => e.kind === 'sync-request').length
    let connections = 1
    for (const code of [4399, 4500]) {
      await until('connected', () => p.wsconnected && opens() === connections)
      relay.closeAll(code, 'transient')
      connections += 1
      await until(`reconnected after ${code}`, () => opens() === connections)
    }
    for (const code of [4400, 4499]) {
      await until('connected', () => p.wsconnected && opens() === connections)
      relay.closeAll(code, 'permanent')
      await until(`closed by ${code}`, () => closed.at(-1) === code)
      expect(p.shouldConnect).toBe(false)
      p.connect()
      connections += 1
    }
    expect(closed).toEqual([4400, 4499])
  })

  test('resyncInterval asks the sidecar for what this page lacks every interval; without it, once per connect', async () => {
    const { relay } = await open({ resyncInterval: 20 })
    await until('three sync requests', () => relay.received.filter((e) => e.kind === 'sync-request').length >= 3)
    const quiet = await open()
    await until('connected', () => quiet.provider.wsconnected)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(quiet.relay.received.filter((e) => e.kind === 'sync-request')).toHaveLength(1)
  })

  test('awareness: false keeps presence local; an Awareness handed in is the one carried, with the presence timing', async () => {
    const off = await open({ awareness: false })
    off.provider.awareness.setLocalStateField('user', 'a')
    off.provider.doc.getText('t').insert(0, 'x')
    await until('the edit', () => off.relay.received.some((e) => e.kind === 'update'))
    expect(off.provider.connection.awareness).toBeNull()
    expect(off.relay.received.some((e) => e.kind === 'awareness')).toBe(false)

    const doc = new Y.Doc()
    const mine = new Awareness(doc)
    const on = await open({ doc, awareness: mine, presence: { idleMs: 5, intervalMs: 5 } } as E2eColProviderOptions)
    expect(on.provider.awareness).toBe(mine)
    expect(on.provider.connection.awareness).toBe(mine)
    await until('connected', () => on.provider.wsconnected)
    const count = (): number => on.relay.received.filter((e) => e.kind === 'awareness').length
    const before = count()
    mine.setLocalStateField('user', 'b') // no edit carries it: sent alone after idleMs (5 ms, not 1 s)
    await until('the standalone presence', () => count() > before)
  })
})

describe("E2eColProvider, a connection's events", () => {
  test('connecting, connected, then on disconnect() a connection-close with no event, sync(false) and disconnected', async () => {
    const { relay, provider: p } = await open()
    const log: string[] = []
    p.on('status', ({ status }) => log.push(status))
    p.on('connection-close', (event, who) => log.push(`close ${event === null ? 'null' : 'event'} ${who === p}`))
    p.on('sync', (s) => log.push(`sync ${s}`))
    p.on('synced', (s) => log.push(`synced ${s}`))
    const connecting: boolean[] = []
    p.on('status', ({ status }) => {
      if (status === 'connecting') connecting.push(p.wsconnecting)
    })
    await until('connected', () => p.wsconnected)
    expect(connecting).toEqual([true])
    expect(p.wsconnecting).toBe(false)
    expect(p.ws).not.toBeNull()
    expect(p.shouldConnect).toBe(true)
    sidecarCopyArrives(relay)
    await until('synced', () => p.synced)
    expect(p.wsLastMessageReceived).toBeGreaterThan(0)
    expect(p.wsUnsuccessfulReconnects).toBe(0)
    p.disconnect()
    expect(log).toEqual([
      'connecting',
      'connected',
      'synced true',
      'sync true',
      'close null true',
      'synced false',
      'sync false',
      'disconnected',
    ])
    expect(p.wsconnected).toBe(false)
    expect(p.shouldConnect).toBe(false)
    expect(p.wsUnsuccessfulReconnects).toBe(1)
    p.connect()
    await until('connected again', () => p.wsconnected)
  })

  test('a failed attempt: connecting, connection-error, connection-close with the close event; no disconnected', async () => {
    const relay = await startRelay()
    const url = relay.url
    await relay.close() // nothing listens there now
    const p = provider(url, { transport: { network: null, backoff: { baseMs: 10_000, maxMs: 10_000, factor: 1 } } })
    const log: string[] = []
    p.on('status', ({ status }) => log.push(status))
    p.on('connection-error', (_event, who) => log.push(`error ${who === p}`))
    p.on('connection-close', (event) => log.push(`close ${event === null ? 'null' : 'event'}`))
    await until('the close', () => log.some((l) => l.startsWith('close')))
    expect(log).toEqual(['connecting', 'error true', 'close event'])
    expect(p.wsconnecting).toBe(false)
    expect(p.wsconnected).toBe(false)
    expect(p.wsUnsuccessfulReconnects).toBe(1)
  })

  test('forwards the binding’s recovery, saved, pending and error events', async () => {
    const { relay, provider: p } = await open()
    const log: string[] = []
    p.on('pending', (n) => log.push(`pending ${n}`))
    p.on('saved', () => log.push('saved'))
    p.on('error', (e) => log.push(`error ${e.code}`))
    p.on('recovery', (e) => log.push(`recovery ${e.reason}`))
    await until('connected', () => p.wsconnected)
    p.doc.getText('t').insert(0, 'x')
    const savedAt: unknown[] = []
    p.on('saved', (event) => savedAt.push(event.at))
    await until('saved', () => log.includes('saved'))
    expect(savedAt).toEqual([expect.any(Number)])
    expect(p.pending).toBe(0)
    expect(log.filter((l) => l.startsWith('pending'))).toEqual(['pending 1', 'pending 0'])
    expect(log.at(-1)).toBe('saved')
    relay.sockets(DOC_ID)[0]?.send(new Uint8Array([1, 2, 3]))
    await until('the bad frame', () => log.includes('error CLIENT_BAD_FRAME'))
    relay.closeAll(4409, 'history at risk')
    await until('recovery', () => log.includes('recovery sidecar-history-risk'))
  })

  test('destroy() ends the binding for good: whenDestroyed resolves, connect() and shouldConnect stay off', async () => {
    const { relay, provider: p } = await open()
    await until('connected', () => p.wsconnected)
    p.destroy()
    p.destroy()
    await p.whenDestroyed
    p.connect()
    expect(p.shouldConnect).toBe(false)
    p.shouldConnect = true
    expect(p.shouldConnect).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(relay.sockets(DOC_ID)).toHaveLength(0)
  })

  test('shouldConnect set to false lets the next close go without a retry; set back, connect() connects', async () => {
    const { relay, provider: p } = await open()
    await until('connected', () => p.wsconnected)
    p.shouldConnect = false
    relay.closeAll(1011, 'restart')
    await until('disconnected', () => !p.wsconnected)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(relay.sockets(DOC_ID)).toHaveLength(0)
    p.shouldConnect = true
    expect(p.shouldConnect).toBe(true)
    p.connect()
    await until('connected again', () => p.wsconnected)
  })
  test('follows the network it is given: offline closes, online reconnects; connect() while offline waits; destroy lets it go', async () => {
    const relay = await startRelay()
    cleanups.push(() => relay.close())
    const listeners = { online: new Set<() => void>(), offline: new Set<() => void>() }
    let up = true
    const network = {
      addEventListener: (type: 'online' | 'offline', l: () => void) => listeners[type].add(l),
      removeEventListener: (type: 'online' | 'offline', l: () => void) => listeners[type].delete(l),
    }
    const fire = (type: 'online' | 'offline'): void => {
      for (const l of listeners[type]) l()
    }
    const p = new E2eColProvider(relay.url, DOC_ID, new Y.Doc(), {
      WebSocketPolyfill: WebSocket as unknown as WebSocketConstructor,
      storage: createMemoryStorage(),
      lifecycle: null,
      transport: { network, isOnline: () => up },
    })
    await until('connected', () => p.wsconnected)
    up = false
    fire('offline')
    expect(p.wsconnected).toBe(false)
    p.connect() // the network is down: nothing to try
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(relay.sockets(DOC_ID)).toHaveLength(0)
    up = true
    fire('online')
    await until('connected again', () => p.wsconnected)
    expect(listeners.online.size + listeners.offline.size).toBeGreaterThan(0)
    p.destroy()
    await p.whenDestroyed
    expect(listeners.online.size + listeners.offline.size).toBe(0)
  })

  test('a synced connection resets the count of unsuccessful reconnects', async () => {
    const { relay, provider: p } = await open()
    await until('connected', () => p.wsconnected)
    relay.closeAll(1011, 'restart')
    await until('reconnected', () => p.wsUnsuccessfulReconnects === 1 && p.wsconnected)
    expect(p.synced).toBe(false)
    sidecarCopyArrives(relay)
    await until('synced', () => p.synced)
    expect(p.wsUnsuccessfulReconnects).toBe(0)
  })
  test("a shouldReconnect of the caller's replaces the default, gets the close event and the provider, and is read at each close", async () => {
    const asked: [number, boolean][] = []
    const { relay, provider: p } = await open({
      shouldReconnect: (event, who) => {
        asked.push([event.code, who === p])
        return event.code === 4401 // y-websocket's default would refuse 4401 and retry 1011
      },
    })
    const closed: number[] = []
    p.on('closed', ({ code }) => closed.push(code))
    await until('connected', () => p.wsconnected)
    relay.closeAll(4401, 'retry me')
    await until('reconnected after 4401', () => asked.length === 1 && p.wsconnected)
    relay.closeAll(1011, 'not this one')
    await until('closed by 1011', () => closed.length === 1)
    expect(closed).toEqual([1011])
    expect(asked).toEqual([
      [4401, true],
      [1011, true],
    ])
    p.shouldReconnect = () => true
    p.connect()
    await until('connected again', () => p.wsconnected)
    relay.closeAll(4403, 'now retried')
    await until('reconnected after 4403', () => p.wsUnsuccessfulReconnects >= 1 && p.wsconnected)
    expect(closed).toEqual([1011])
  })

  test('allSaved only once the local state is loaded', async () => {
    const gate: { open?: () => void } = {}
    const loaded = new Promise<void>((resolve) => (gate.open = resolve))
    const storage = createMemoryStorage()
    const slow = {
      ...storage,
      load: async () => {
        await loaded
        return storage.load()
      },
    }
    const p = provider('ws://127.0.0.1:9', { connect: false, storage: slow })
    expect(p.pending).toBe(0)
    expect(p.allSaved).toBe(false)
    gate.open?.()
    await p.connection.ready
    expect(p.allSaved).toBe(true)
  })
  test('disconnect() sends the presence removal while connected, also after shouldConnect was set to false', async () => {
    const { relay, provider: p } = await open()
    p.awareness.setLocalStateField('user', { name: 'Alice' })
    await relay.nextEnvelope((e) => e.kind === 'awareness', 'the announcement')
    p.shouldConnect = false // only the next (re)connect is affected
    const removal = relay.nextEnvelope((e) => e.kind === 'awareness', 'the removal')
    p.disconnect()
    const peer = new Awareness(new Y.Doc())
    peer.setLocalState(null)
    applyAwarenessUpdate(peer, (await removal).payload, 'test')
    expect(peer.getStates().has(p.awareness.clientID)).toBe(false)
    expect(p.awareness.getLocalState()).toEqual({ user: { name: 'Alice' } })
    peer.destroy()
  })

  test('without a transport option (Node: no window) it connects; in a page it follows the window', async () => {
    const relay = await startRelay()
    cleanups.push(() => relay.close())
    const { transport: _transport, ...withoutTransport } = nodeProviderOptions()
    const plain = provider(relay.url, {}, withoutTransport)
    await until('connected without a transport option', () => plain.wsconnected)
    const page = new EventTarget()
    vi.stubGlobal('window', page)
    try {
      const inPage = provider(relay.url, {}, withoutTransport)
      await until('connected in a page', () => inPage.wsconnected)
      page.dispatchEvent(new Event('offline'))
      expect(inPage.wsconnected).toBe(false)
      expect(plain.wsconnected).toBe(true)
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
