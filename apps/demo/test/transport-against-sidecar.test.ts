/**
 * The browser transport against the real sidecar (over the toy daemon): acks, error envelopes and
 * reconnecting to a restarted sidecar, as docs/sidecar.md §4.7 describes the browser WebSocket.
 */
import { decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { WebSocketTransport, type WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startDemoStack, type DemoStack } from '../src/index.ts'

const SENDER = '3f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e60'

describe('WebSocketTransport against the real sidecar', () => {
  let stack: DemoStack
  let transport: WebSocketTransport
  const received: Envelope[] = []
  let waiters: { predicate: (e: Envelope) => boolean; resolve: (e: Envelope) => void }[] = []

  beforeAll(async () => {
    stack = await startDemoStack({ page: false, sidecarPorts: [0, 0], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } })
    transport = new WebSocketTransport({
      url: `${stack.sidecarUrl('alice')}/v1/docs/${stack.docId}`,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      backoff: { baseMs: 20, maxMs: 200, factor: 2 },
      network: null,
    })
    transport.on('frame', (frame) => {
      const envelope = decodeEnvelope(frame)
      received.push(envelope)
      waiters = waiters.filter((w) => (w.predicate(envelope) ? (w.resolve(envelope), false) : true))
    })
  })
  afterAll(async () => {
    transport?.stop()
    await stack?.close()
  })

  const next = (predicate: (e: Envelope) => boolean): Promise<Envelope> =>
    new Promise((resolve) => waiters.push({ predicate, resolve }))
  const opened = (): Promise<unknown> =>
    transport.status === 'connected' ? Promise.resolve() : new Promise((resolve) => transport.on('open', resolve))

  test('an update is acknowledged with an ack carrying its message id', async () => {
    const open = opened()
    transport.start()
    await open
    const messageId = 'a1'.repeat(16)
    const ack = next((e) => e.kind === 'ack' && e.messageId === messageId)
    transport.send(
      encodeEnvelope({
        kind: 'update',
        flags: 0,
        docId: stack.docId,
        senderId: SENDER,
        messageId,
        seq: 1,
        payload: new Uint8Array([0, 0]),
      }),
    )
    const envelope = await ack
    expect(envelope.docId).toBe(stack.docId)
    expect(envelope.payload.byteLength).toBe(0)
  })

  test('an invalid frame is answered with an error envelope whose JSON names a PROTO_ code', async () => {
    const error = next((e) => e.kind === 'error')
    transport.send(new Uint8Array([1, 2, 3, 4]))
    const body = JSON.parse(new TextDecoder().decode((await error).payload)) as { code: string; message: string }
    expect(body.code).toMatch(/^PROTO_[A-Z_]+$/)
    expect(typeof body.message).toBe('string')
    expect(transport.status).toBe('connected')
  })

  test('a restarted sidecar is reconnected to on the same URL', async () => {
    await opened()
    const closed = new Promise<{ code: number }>((resolve) => {
      const off = transport.on('close', (c) => {
        off()
        resolve(c)
      })
    })
    await stack.stopSidecar('alice')
    expect((await closed).code).toBe(1001)
    const reopened = new Promise((resolve) => transport.on('open', resolve))
    await stack.startSidecar('alice')
    await reopened
    expect(transport.status).toBe('connected')
  })
})
