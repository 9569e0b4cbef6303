/**
 * E2eColProvider's delivery surface against a simulated sidecar: the `delivery` event and the
 * `delivery` / `allSaved` / `allSent` getters follow a change from this browser to the sidecar to
 * the group, with Signal's state and refusals as the sidecar's notes tell them.
 */
import 'fake-indexeddb/auto'
import { encodeDeliveryNote, encodeEnvelope, type DeliveryNote, type Envelope } from '@e2e-col/protocol'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { afterEach, describe, expect, test } from 'vitest'
import { createMemoryStorage, E2eColProvider, type ProviderDelivery } from '../src/index.ts'
import { DOC_ID, WAIT_MS } from './client-harness.ts'
import { startRelay, type Relay } from './sim-relay.ts'

const SIDECAR_ID = '22222222-2222-4222-8222-222222222222'
const opened: { relay: Relay; provider: E2eColProvider }[] = []
afterEach(async () => {
  for (const { relay, provider } of opened.splice(0)) {
    provider.destroy()
    await provider.whenDestroyed
    await relay.close()
  }
})

async function open(): Promise<{ relay: Relay; provider: E2eColProvider; doc: Y.Doc }> {
  const relay = await startRelay()
  const doc = new Y.Doc()
  const provider = new E2eColProvider(relay.url, DOC_ID, doc, {
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    storage: createMemoryStorage(),
    lifecycle: null,
    flushWindowMs: 10,
    awareness: false,
    transport: { backoff: { baseMs: 10, maxMs: 80, factor: 2 }, network: null },
  })
  opened.push({ relay, provider })
  return { relay, provider, doc }
}

/** The sidecar's note about Signal, as a real one sends it to every page of the document. */
function note(relay: Relay, body: DeliveryNote): void {
  const frame = encodeEnvelope({
    kind: 'delivery',
    flags: 0,
    docId: DOC_ID,
    senderId: SIDECAR_ID,
    messageId: `${Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0')}${'0'.repeat(24)}`,
    seq: 0,
    payload: encodeDeliveryNote(body),
  })
  for (const socket of relay.sockets(DOC_ID)) socket.send(frame)
}

function until(provider: E2eColProvider, what: string, check: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`waited ${WAIT_MS} ms for ${what}; delivery is ${JSON.stringify(provider.delivery)}`))
    }, WAIT_MS)
    const listener = (): void => {
      if (!check()) return
      stop()
      resolve()
    }
    const stop = (): void => {
      clearTimeout(timer)
      provider.off('delivery', listener)
      provider.off('status', listener)
    }
    provider.on('delivery', listener)
    provider.on('status', listener)
    listener()
  })
}

describe('E2eColProvider delivery states', () => {
  test('a change goes browser → sidecar → group, in events and getters', async () => {
    const { relay, provider, doc } = await open()
    await until(provider, 'connected', () => provider.wsconnected)
    const seen: ProviderDelivery[] = []
    provider.on('delivery', (d) => seen.push(d))
    const sent: string[] = []
    provider.on('sent', (e) => sent.push(...e.messageIds))

    relay.hold = true // the sidecar has not confirmed it yet
    const update = relay.nextEnvelope((e) => e.kind === 'update')
    doc.getText('t').insert(0, 'hello')
    const envelope: Envelope = await update
    await until(provider, 'the change waiting in this browser', () => provider.delivery.state === 'browser')
    expect(provider.delivery.pending).toBe(1)
    expect(provider.allSaved).toBe(false)
    expect(provider.allSent).toBe(false)

    // The sidecar confirms (ack) and says it holds one change Signal has not taken.
    note(relay, { signal: 'unreachable', since: 1_700_000_000_000, unsent: 1, sent: [] })
    relay.sockets(DOC_ID)[0]?.send(encodeEnvelope({ ...envelope, kind: 'ack', payload: new Uint8Array() }))
    await until(provider, 'saved by the sidecar, not yet sent', () => provider.delivery.state === 'sidecar')
    expect(provider.delivery).toMatchObject({ pending: 0, unsent: 1, signal: 'unreachable', since: 1_700_000_000_000 })
    expect(provider.allSaved).toBe(true)
    expect(provider.allSent).toBe(false)

    note(relay, { signal: 'reachable', since: null, unsent: 0, sent: [envelope.messageId] })
    await until(provider, 'sent to the group', () => provider.delivery.state === 'group')
    expect(provider.allSent).toBe(true)
    expect(sent).toEqual([envelope.messageId])
    expect(seen.map((d) => d.state).filter((s, i, all) => i === 0 || all[i - 1] !== s)).toEqual([
      'browser',
      'sidecar',
      'group',
    ])
  })

  test('a refusal by Signal is a delivery state with its reason, and an unchanged note is no event', async () => {
    const { relay, provider } = await open()
    await until(provider, 'connected', () => provider.wsconnected)
    note(relay, { signal: 'reachable', since: null, unsent: 0, sent: [] })
    await until(provider, "the sidecar's first note", () => provider.delivery.signal === 'reachable')
    let events = 0
    provider.on('delivery', () => (events += 1))
    note(relay, { signal: 'reachable', since: null, unsent: 0, sent: [] })
    note(relay, {
      signal: 'refused',
      since: 1_700_000_000_000,
      unsent: 0,
      sent: [],
      reason: 'signal-cli error -4: Untrusted identity',
    })
    await until(provider, 'the refusal', () => provider.delivery.signal === 'refused')
    expect(events).toBe(1)
    expect(provider.delivery.reason).toBe('signal-cli error -4: Untrusted identity')
  })
  test('each field of the delivery changing alone is a delivery event; the same note again is none', async () => {
    const { relay, provider } = await open()
    await until(provider, 'connected', () => provider.wsconnected)
    const seen: ProviderDelivery[] = []
    provider.on('delivery', (d) => seen.push(d))
    const steps: [DeliveryNote, Partial<ProviderDelivery>][] = [
      [
        { signal: 'unreachable', since: 1, unsent: 0, sent: [] },
        { signal: 'unreachable', since: 1 },
      ],
      [{ signal: 'unreachable', since: 2, unsent: 0, sent: [] }, { since: 2 }],
      [
        { signal: 'unreachable', since: 2, unsent: 3, sent: [] },
        { unsent: 3, state: 'sidecar' },
      ],
      [
        { signal: 'unreachable', since: 2, unsent: 4, sent: [] },
        { unsent: 4, state: 'sidecar' },
      ],
      [
        { signal: 'refused', since: 2, unsent: 3, sent: [], reason: 'a' },
        { signal: 'refused', reason: 'a' },
      ],
      [{ signal: 'refused', since: 2, unsent: 3, sent: [], reason: 'b' }, { reason: 'b' }],
    ]
    for (const [body, expected] of steps) {
      const before = seen.length
      note(relay, body)
      note(relay, body)
      await until(provider, JSON.stringify(expected), () => seen.length > before)
      expect(seen.at(-1)).toMatchObject(expected)
    }
    // Signal refused a change of this page whose entry is already settled: only the refused count moves.
    const before = seen.length
    relay.sockets(DOC_ID)[0]?.send(
      encodeEnvelope({
        kind: 'error',
        flags: 0,
        docId: DOC_ID,
        senderId: SIDECAR_ID,
        messageId: 'ef'.repeat(16),
        seq: 0,
        payload: new TextEncoder().encode(JSON.stringify({ code: 'SIDECAR_SEND_REJECTED', message: 'b' })),
      }),
    )
    await until(provider, 'the refused count', () => seen.length > before)
    expect(seen.at(-1)).toMatchObject({ refused: 1, reason: 'b', signal: 'refused' })
    // Each step was one event: the repeated note was none.
    expect(seen).toHaveLength(steps.length + 1)
  })
  test('one more change waiting in this browser is a delivery event, though the state stays browser', async () => {
    const { relay, provider, doc } = await open()
    await until(provider, 'connected', () => provider.wsconnected)
    relay.hold = true
    const seen: ProviderDelivery[] = []
    provider.on('delivery', (d) => seen.push(d))
    doc.getText('t').insert(0, 'a')
    await until(provider, 'one waiting', () => provider.delivery.pending === 1)
    await new Promise((resolve) => setTimeout(resolve, 30)) // past the 10 ms flush window
    doc.getText('t').insert(1, 'b')
    await until(provider, 'two waiting', () => provider.delivery.pending === 2)
    expect(seen.map((d) => [d.state, d.pending])).toEqual([
      ['browser', 1],
      ['browser', 2],
    ])
  })
})
