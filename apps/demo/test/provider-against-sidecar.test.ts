/**
 * E2eColProvider's y-websocket surface against two real sidecars over the toy daemon: status, sync,
 * connection-close/-error, connect()/disconnect(), the awareness handed in, and e2e-col's own
 * pending/saved events and delivery states (the toy's network-loss switch makes Signal unreachable).
 */
import { createMemoryStorage, E2eColProvider, type E2eColProviderOptions, type ProviderDelivery } from '@e2e-col/client'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import type { Who } from '../src/index.ts'
import { NODE_STACK_WITH_FAULTS, useDemoStack } from './pages.ts'

const BASE: E2eColProviderOptions = {
  WebSocket: WebSocket as unknown as WebSocketConstructor,
  lifecycle: null,
  flushWindowMs: 20,
  syncResponseDelayMs: { min: 0, max: 5 },
  transport: { backoff: { baseMs: 20, maxMs: 200, factor: 2 }, network: null },
}

/** Resolves when `check` holds, re-checked on every provider event; fails after 20 s naming `what`. */
function until(provider: E2eColProvider, what: string, check: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const names = ['status', 'sync', 'pending', 'saved', 'delivery', 'connection-close', 'connection-error'] as const
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`waited 20 s for ${what}`))
    }, 20_000)
    const poll = setInterval(() => {
      if (check()) done()
    }, 50)
    const listener = (): void => {
      if (check()) done()
    }
    const stop = (): void => {
      clearTimeout(timer)
      clearInterval(poll)
      for (const name of names) provider.off(name, listener)
    }
    const done = (): void => {
      stop()
      resolve()
    }
    for (const name of names) provider.on(name, listener)
    if (check()) done()
  })
}

describe('E2eColProvider against real sidecars', () => {
  const providers: E2eColProvider[] = []
  const run = useDemoStack(NODE_STACK_WITH_FAULTS, {
    closeFirst: async () => {
      for (const p of providers) p.destroy()
      await Promise.all(providers.map((p) => p.whenDestroyed))
    },
  })

  const open = (who: Who, doc: Y.Doc, options: E2eColProviderOptions = {}): E2eColProvider => {
    const provider = new E2eColProvider(run.stack.sidecarUrl(who), run.stack.docId, doc, {
      ...BASE,
      storage: createMemoryStorage(),
      ...options,
    })
    providers.push(provider)
    return provider
  }
  /** Alice's and Bob's providers on fresh documents, both synced. */
  const syncedPair = async (): Promise<{ docA: Y.Doc; docB: Y.Doc; a: E2eColProvider; b: E2eColProvider }> => {
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const a = open('alice', docA)
    const b = open('bob', docB)
    await until(a, 'alice synced', () => a.synced)
    await until(b, 'bob synced', () => b.synced)
    return { docA, docB, a, b }
  }

  test('connect: false waits for connect(), then reports connecting, connected and sync(true)', async () => {
    const provider = open('alice', new Y.Doc(), { connect: false })
    const statuses: string[] = []
    const syncs: boolean[] = []
    provider.on('status', ({ status }) => statuses.push(status))
    provider.on('sync', (s) => syncs.push(s))
    await provider.connection.ready
    expect(provider.shouldConnect).toBe(false)
    expect(provider.wsconnected).toBe(false)
    expect(provider.synced).toBe(false)

    provider.connect()
    await until(provider, 'synced', () => provider.synced)
    expect(statuses).toEqual(['connecting', 'connected'])
    expect(syncs).toEqual([true])
    expect(provider.wsconnected).toBe(true)
  })

  test("an edit through Alice's provider reaches Bob's, and Alice hears pending then saved", async () => {
    const { docA, docB, a, b } = await syncedPair()
    const pendings: number[] = []
    let saved = 0
    a.on('pending', (n) => pendings.push(n))
    a.on('saved', () => (saved += 1))
    docA.getText('text').insert(0, 'through the provider')
    await until(b, "Alice's text at Bob", () => docB.getText('text').toString().includes('through the provider'))
    await until(a, 'saved', () => saved > 0)
    expect(Math.max(...pendings)).toBeGreaterThan(0)
    expect(a.pending).toBe(0)
  })

  test("the awareness handed in is the one carried: Bob sees Alice's state", async () => {
    const docA = new Y.Doc()
    const awareness = new Awareness(docA)
    const a = open('alice', docA, { awareness, presence: { idleMs: 50, intervalMs: 50 } })
    const b = open('bob', new Y.Doc())
    expect(a.awareness).toBe(awareness)
    await until(a, 'alice synced', () => a.synced)
    await until(b, 'bob synced', () => b.synced)
    awareness.setLocalStateField('user', { name: 'Alice', color: '#d1495b' })
    await until(b, "Alice's presence at Bob", () => {
      const state = b.awareness.getStates().get(docA.clientID) as { user?: { name?: string } } | undefined
      return state?.user?.name === 'Alice'
    })
  })

  test('delivery: saved by the sidecar while Signal is unreachable, then sent to the group', async () => {
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const a = open('alice', docA)
    const b = open('bob', docB)
    await until(a, 'alice synced and told by her sidecar', () => a.synced && a.delivery.signal === 'reachable')
    await until(b, 'bob synced', () => b.synced)
    const seen: ProviderDelivery[] = []
    a.on('delivery', (d) => seen.push(d))
    const sent: string[] = []
    a.on('sent', (e) => sent.push(...e.messageIds))

    run.stack.toy.faults.setNetworkLoss(true)
    docA.getText('text').insert(0, 'kept by the sidecar ')
    await until(a, '"saved by your sidecar, not yet sent: Signal unreachable"', () => {
      const d = a.delivery
      return d.state === 'sidecar' && d.signal === 'unreachable' && d.unsent > 0
    })
    expect(a.allSaved).toBe(true)
    expect(a.allSent).toBe(false)
    expect(a.delivery.since).not.toBeNull()
    expect(sent).toEqual([])

    run.stack.toy.faults.setNetworkLoss(false)
    await until(b, 'the change at Bob', () => docB.getText('text').toString().includes('kept by the sidecar'))
    await until(a, 'sent to the group', () => a.allSent && a.delivery.signal === 'reachable')
    expect(sent.length).toBeGreaterThan(0)
    const states = seen.map((d) => d.state).filter((s, i, all) => i === 0 || all[i - 1] !== s)
    expect(states).toContain('sidecar')
    expect(states.at(-1)).toBe('group')
  })

  test('disconnect() closes and keeps edits; connect() sends them', async () => {
    const { docA, docB, a, b } = await syncedPair()
    const closes: string[] = []
    a.on('connection-close', (event) => closes.push(event === null ? 'closed here' : event.reason))
    a.disconnect()
    await until(a, 'disconnected', () => !a.wsconnected && !a.synced)
    expect(closes).toHaveLength(1)
    docA.getText('text').insert(0, 'while disconnected ')
    await until(a, 'a pending change', () => a.pending > 0)
    expect(a.wsconnecting).toBe(false)
    a.connect()
    await until(b, 'the offline edit at Bob', () => docB.getText('text').toString().includes('while disconnected'))
    await until(a, 'all saved', () => a.pending === 0)
  })

  test('a stopped sidecar gives connection-close, failed attempts connection-error, and it syncs again on restart', async () => {
    const a = open('alice', new Y.Doc())
    await until(a, 'alice synced', () => a.synced)
    let closes = 0
    let errors = 0
    const syncs: boolean[] = []
    a.on('connection-close', () => (closes += 1))
    a.on('connection-error', () => (errors += 1))
    a.on('sync', (s) => syncs.push(s))
    await run.stack.stopSidecar('alice')
    await until(a, 'a failed reconnect attempt', () => closes === 1 && errors > 0)
    await run.stack.startSidecar('alice')
    await until(a, 'synced again', () => a.synced)
    expect(syncs).toEqual([false, true])
  })

  test('the network coming back does not reconnect a provider that was told to disconnect', async () => {
    const listeners = { online: new Set<() => void>(), offline: new Set<() => void>() }
    let up = true
    const network = {
      addEventListener: (type: 'online' | 'offline', l: () => void) => listeners[type].add(l),
      removeEventListener: (type: 'online' | 'offline', l: () => void) => listeners[type].delete(l),
    }
    const fire = (type: 'online' | 'offline'): void => listeners[type].forEach((l) => l())
    const a = open('alice', new Y.Doc(), { transport: { ...BASE.transport, network, isOnline: () => up } })
    await until(a, 'alice synced', () => a.synced)
    a.disconnect()
    up = false
    fire('offline')
    up = true
    fire('online')
    // The transport connects synchronously on `online`; a gated one stays put.
    expect(a.wsconnecting || a.wsconnected).toBe(false)
    a.connect()
    await until(a, 'synced after connect()', () => a.synced)
    up = false
    fire('offline')
    await until(a, 'offline with the network', () => !a.wsconnected)
    up = true
    fire('online')
    await until(a, 'synced when the network is back', () => a.synced)
    a.destroy()
    await a.whenDestroyed
    expect(listeners.online.size + listeners.offline.size).toBe(0)
  })

  test('refuses what a sidecar cannot honour, with typed errors', () => {
    expect(
      () =>
        new E2eColProvider(run.stack.sidecarUrl('alice'), run.stack.docId, new Y.Doc(), {
          ...BASE,
          params: { token: 'x' },
        }),
    ).toThrow(expect.objectContaining({ code: 'CLIENT_UNSUPPORTED_OPTION' }))
    expect(() => new E2eColProvider(run.stack.sidecarUrl('alice'), 'my-room', new Y.Doc(), BASE)).toThrow(
      expect.objectContaining({ code: 'CLIENT_BAD_DOC_ID' }),
    )
  })
})
