/**
 * E2eColProvider's y-websocket surface against a simulated sidecar, for what the conformance suite
 * (apps/provider-conformance) cannot provoke from a real sidecar: `sync(true)` waits for the
 * sidecar's own answer (not a peer's), a close `shouldReconnect` refuses, `destroy()` sending the
 * presence removal before the socket closes, and the page being left.
 */
import { encodeDeliveryNote, encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import { applyAwarenessUpdate, Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { E2eColProvider, type E2eColProviderOptions, type PageLifecycle } from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'
import { nodeProviderOptions } from './provider-fixture.ts'
import { startRelay, type Relay } from './sim-relay.ts'

const SIDECAR_ID = '22222222-2222-4222-8222-222222222222'
const PEER_ID = '33333333-3333-4333-8333-333333333333'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function open(options: E2eColProviderOptions = {}): Promise<{ relay: Relay; provider: E2eColProvider }> {
  const relay = await startRelay()
  const provider = new E2eColProvider(relay.url, DOC_ID, new Y.Doc(), { ...nodeProviderOptions(), ...options })
  cleanups.push(async () => {
    provider.destroy()
    await Promise.all([provider.whenDestroyed, relay.close()])
  })
  return { relay, provider }
}

let ids = 0
/** An envelope as the sidecar (or a peer) sends it to every page of the document. */
function sendToPages(relay: Relay, kind: Kind, senderId: string, payload: Uint8Array): void {
  const envelope: Envelope = {
    kind,
    flags: 0,
    docId: DOC_ID,
    senderId,
    messageId: (ids++).toString(16).padStart(32, '0'),
    seq: 0,
    payload,
  }
  for (const socket of relay.sockets(DOC_ID)) socket.send(encodeEnvelope(envelope))
}

/** Waits until `check` holds; fails naming `what`. */
const until = (what: string, check: () => boolean): Promise<void> =>
  vi.waitFor(() => expect(check(), what).toBe(true), { timeout: 10_000, interval: 10 })

describe('E2eColProvider, y-websocket surface', () => {
  test("sync(true) waits for the sidecar's answer with its copy: a peer's answer does not count", async () => {
    const { relay, provider } = await open()
    const syncs: boolean[] = []
    provider.on('sync', (s) => syncs.push(s))
    await relay.nextEnvelope((e) => e.kind === 'sync-request', 'the sync request')
    expect(provider.wsconnected).toBe(true)
    expect(provider.synced).toBe(false)
    // The sidecar greets first (its delivery note), so its own sender id is known.
    sendToPages(
      relay,
      'delivery',
      SIDECAR_ID,
      encodeDeliveryNote({ signal: 'reachable', since: 1, unsent: 0, sent: [] }),
    )
    const peerCopy = new Y.Doc()
    peerCopy.getText('t').insert(0, 'from a peer')
    sendToPages(relay, 'sync-response', PEER_ID, Y.encodeStateAsUpdate(peerCopy))
    await until('the peer content', () => provider.doc.getText('t').length > 0)
    expect(provider.synced).toBe(false)
    const sidecarCopy = new Y.Doc()
    sidecarCopy.getText('s').insert(0, 'the sidecar copy')
    sendToPages(relay, 'sync-response', SIDECAR_ID, Y.encodeStateAsUpdate(sidecarCopy))
    await until('synced', () => provider.synced)
    expect(provider.doc.getText('s').toString()).toBe('the sidecar copy')
    expect(syncs).toEqual([true])
  })

  test('a close shouldReconnect refuses emits closed and stops retrying; connect() tries again', async () => {
    const { relay, provider } = await open({ shouldReconnect: (event) => event.code !== 4403 })
    await until('connected', () => provider.wsconnected)
    const closed: { code: number; reason: string }[] = []
    provider.on('closed', (event) => closed.push(event))
    relay.closeAll(4403, 'no longer a member')
    await until('closed', () => closed.length === 1)
    expect(closed).toEqual([{ code: 4403, reason: 'no longer a member' }])
    expect(provider.shouldConnect).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 300)) // backoff would have retried by now
    expect(relay.sockets(DOC_ID)).toHaveLength(0)
    provider.connect()
    await until('connected again', () => provider.wsconnected)
  })

  test('4409 (history at risk) reconnects even when shouldReconnect refuses everything', async () => {
    const { relay, provider } = await open({ shouldReconnect: () => false })
    await until('connected', () => provider.wsconnected)
    const snapshot = relay.nextEnvelope((e) => e.kind === 'snapshot', 'the snapshot after 4409')
    relay.closeAll(4409, 'history at risk')
    await snapshot
    expect(provider.shouldConnect).toBe(true)
  })

  test('destroy() sends the presence removal before the socket closes', async () => {
    const { relay, provider } = await open()
    provider.awareness.setLocalStateField('user', { name: 'Alice' })
    const announced = await relay.nextEnvelope((e) => e.kind === 'awareness', 'the announcement')
    const peer = new Awareness(new Y.Doc())
    applyAwarenessUpdate(peer, announced.payload, 'test')
    expect(peer.getStates().has(provider.awareness.clientID)).toBe(true)
    const removal = relay.nextEnvelope((e) => e.kind === 'awareness', 'the removal')
    provider.destroy()
    applyAwarenessUpdate(peer, (await removal).payload, 'test')
    expect(peer.getStates().has(provider.awareness.clientID)).toBe(false)
    peer.destroy()
  })

  test('the page being left sends the removal at once; coming back from the cache announces again', async () => {
    const hooks: { leave?: () => void; back?: () => void } = {}
    const lifecycle: PageLifecycle = {
      onHide: () => () => {},
      onLeave(leave, back) {
        hooks.leave = leave
        hooks.back = back
        return () => {}
      },
    }
    const { relay, provider } = await open({ lifecycle })
    provider.awareness.setLocalStateField('user', { name: 'Alice' })
    await relay.nextEnvelope((e) => e.kind === 'awareness', 'the announcement')
    const removal = relay.nextEnvelope((e) => e.kind === 'awareness', 'the removal')
    hooks.leave?.()
    const peer = new Awareness(new Y.Doc())
    applyAwarenessUpdate(peer, (await removal).payload, 'test')
    expect(peer.getStates().has(provider.awareness.clientID)).toBe(false)
    const again = relay.nextEnvelope((e) => e.kind === 'awareness', 'the state again')
    hooks.back?.()
    applyAwarenessUpdate(peer, (await again).payload, 'test')
    expect(peer.getStates().get(provider.awareness.clientID)).toEqual({ user: { name: 'Alice' } })
    peer.destroy()
  })

  test("at status 'disconnected' the client status already says offline (a page renders from it)", async () => {
    const { provider } = await open()
    await until('connected', () => provider.wsconnected)
    const seen: string[] = []
    provider.on('status', ({ status }) => {
      if (status === 'disconnected') seen.push(provider.clientStatus.connection)
    })
    provider.disconnect()
    expect(seen).toEqual(['offline'])
  })

  test('params with a value has no meaning over a sidecar: CLIENT_UNSUPPORTED_OPTION, also when assigned', async () => {
    expect(
      () => new E2eColProvider('ws://127.0.0.1:9', DOC_ID, new Y.Doc(), { connect: false, params: { auth: 'x' } }),
    ).toThrow(
      expect.objectContaining({
        code: 'CLIENT_UNSUPPORTED_OPTION',
        message: 'a sidecar takes no URL parameters (params)',
      }),
    )
    const { provider } = await open({ connect: false })
    provider.params = {}
    expect(() => (provider.params = { auth: 'x' })).toThrow(
      expect.objectContaining({ code: 'CLIENT_UNSUPPORTED_OPTION' }),
    )
  })
})
