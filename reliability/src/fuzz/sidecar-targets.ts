/**
 * Fuzz targets at the sidecar's edges: the events-stream reader (random SSE bytes, split at every
 * position, must yield the same events as unsplit and never throw), the ingest of group bodies
 * (never throws, delivers only allowed kinds of the mapped document), JSON-RPC answers (only the
 * daemon client's typed errors), and a browser WebSocket's frame handler (only typed refusals).
 */
import { EventEmitter } from 'node:events'
import { encodeBody, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import fc from 'fast-check'
import { asSignalCliFailure, parseResponse, readSignalEvents, SendResult } from '@e2e-col/signal-cli'
import { createLogger } from '@e2e-col/sidecar'
import {
  BROWSER_KINDS,
  createIngest,
  createMetrics,
  createSession,
  createTokenBucket,
} from '@e2e-col/sidecar/internals'
import { bodyText, envelope, frameBytes, mutated } from './arbitraries.ts'
import type { FuzzTarget } from './target.ts'

const ACCOUNT = '+15550100001'
const GROUP = 'Z3JvdXAtaWQtZm9yLWZ1enppbmctMDAwMDAwMDAwMDA='
const DOC = '6f1c0c1e-0000-4000-8000-000000000001'

const receiveEvent = (body: string, account: string) =>
  JSON.stringify({
    envelope: {
      sourceNumber: '+15550100002',
      timestamp: 1,
      dataMessage: { timestamp: 1, message: body, groupInfo: { groupId: GROUP } },
    },
    account,
  })

/** SSE text: real receive events, other events, comments, junk, CR/LF/CRLF line ends. */
const sseText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      bodyText.map((b) => `event:receive\ndata:${receiveEvent(b, ACCOUNT)}\n\n`),
      bodyText.map((b) => `data:${receiveEvent(b, ACCOUNT)}\r\n\r\n`),
      fc.json().map((j) => `data:${j}\n\n`),
      fc.string({ maxLength: 30 }).map((s) => `event:${s}\ndata:x\n\n`),
      fc.string({ maxLength: 20 }).map((s) => `:${s}\n`),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('\r', '\n', '\r\n', 'data:', 'id:1\n', 'retry:x\n', '\n\n'),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''))

async function* chunks(parts: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p
}

async function events(parts: readonly Uint8Array[]): Promise<string> {
  const out: unknown[] = []
  for await (const e of readSignalEvents(chunks(parts), ACCOUNT)) out.push(e)
  return JSON.stringify(out)
}

export const eventsStream: FuzzTarget<string> = {
  name: 'events-stream ingest (every split)',
  arbitrary: sseText,
  async check(text) {
    const bytes = new TextEncoder().encode(text)
    const whole = await events([bytes])
    for (let i = 1; i < bytes.length; i++) {
      const split = await events([bytes.subarray(0, i), bytes.subarray(i)])
      if (split !== whole) throw new Error(`split at byte ${i} changed the events`)
    }
    return Math.max(1, bytes.length)
  },
}

const silent = createLogger('silent')

/** Group bodies from the daemon: ours (valid, mutated, other documents, local-only kinds) and not ours. */
const groupBody: fc.Arbitrary<string> = fc.oneof(
  bodyText,
  envelope().map((e) => encodeBody(encodeEnvelope({ ...e, docId: DOC }))),
  envelope(['ack', 'error']).map((e) => encodeBody(encodeEnvelope({ ...e, docId: DOC }))),
  mutated(envelope().map((e) => encodeEnvelope({ ...e, docId: DOC }))).map((f) =>
    encodeBody(f.length === 0 ? new Uint8Array([0]) : f),
  ),
)

export const daemonIngest: FuzzTarget<string[]> = {
  name: 'group body ingest',
  arbitrary: fc.array(groupBody, { minLength: 1, maxLength: 8 }),
  check(bodies) {
    const delivered: Envelope[] = []
    const ingest = createIngest({
      docOfGroup: (groupId) => (groupId === GROUP ? DOC : undefined),
      maxFrameBytes: 1 << 16,
      reassembly: { maxPartialMessages: 4, maxPartialBytes: 4096, ttlMs: 1000 },
      dedup: { maxEntries: 64, ttlMs: 1000 },
      now: () => 0,
      deliver: (_doc, _frame, env) => void delivered.push(env),
      metrics: createMetrics(),
      logger: silent,
    })
    for (const b of bodies) ingest.handle(GROUP, b)
    for (const e of delivered) {
      if (e.docId !== DOC || !BROWSER_KINDS.has(e.kind)) throw new Error(`delivered a ${e.kind} of ${e.docId}`)
    }
    const keys = delivered.map((e) => `${e.senderId}/${e.messageId}`)
    if (new Set(keys).size !== keys.length) throw new Error('delivered one message twice')
    return bodies.length
  },
}

const rpcText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.json(),
  fc
    .record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.constant(7), fc.integer(), fc.constant(null), fc.string()),
        result: fc.anything(),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc
    .record({
      jsonrpc: fc.constant('2.0'),
      id: fc.constantFrom(7, null),
      error: fc.record(
        {
          code: fc.oneof(fc.integer(), fc.constant(-5), fc.string()),
          message: fc.oneof(fc.string(), fc.constant(undefined)),
          data: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    })
    .map((o) => JSON.stringify(o)),
  fc
    .record({ timestamp: fc.oneof(fc.integer(), fc.double(), fc.string()), results: fc.anything() })
    .map((result) => JSON.stringify({ jsonrpc: '2.0', id: 7, result })),
)

export const jsonRpcResponse: FuzzTarget<string> = {
  name: 'JSON-RPC response handling',
  arbitrary: rpcText,
  check(text) {
    try {
      parseResponse(text, 7, SendResult)
    } catch (error) {
      if (asSignalCliFailure(error) === undefined) throw error
    }
  },
}

/** A stand-in for a `ws` socket: records what the session sends and how it closes. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1
  readonly CONNECTING = 0
  readyState = 1
  bufferedAmount = 0
  sent: Uint8Array[] = []
  closeCode: number | undefined
  send(frame: Uint8Array): void {
    this.sent.push(frame)
  }
  close(code: number): void {
    this.closeCode = code
    this.readyState = 3
  }
}

const wsMessage = fc.oneof(
  { weight: 4, arbitrary: frameBytes.map((b) => ({ data: Buffer.from(b), binary: true })) },
  {
    weight: 2,
    arbitrary: envelope().map((e) => ({ data: Buffer.from(encodeEnvelope({ ...e, docId: DOC })), binary: true })),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => ({ data: Buffer.from(s), binary: false })) },
)

export const wsFrameHandler: FuzzTarget<{ data: Buffer; binary: boolean }[]> = {
  name: 'WebSocket frame handler',
  arbitrary: fc.array(wsMessage, { minLength: 1, maxLength: 12 }),
  check(messages) {
    const ws = new FakeSocket()
    const accepted: Envelope[] = []
    createSession({
      ws: ws as never,
      docId: DOC,
      sidecarId: '6f1c0c1e-0000-4000-8000-00000000000f',
      maxFrameBytes: 1 << 16,
      abuseLimit: 3,
      rate: createTokenBucket({ ratePerSecond: 1000, burst: 1000, now: 0 }),
      now: () => 0,
      newMessageId: () => '00'.repeat(16),
      onEnvelope: (_s, env) => accepted.push(env),
      metrics: createMetrics(),
    })
    for (const m of messages) if (ws.readyState === 1) ws.emit('message', m.data, m.binary)
    const senders = new Set(accepted.map((e) => e.senderId))
    if (senders.size > 1) throw new Error('accepted two sender ids on one connection')
    for (const e of accepted)
      if (e.docId !== DOC || !BROWSER_KINDS.has(e.kind)) throw new Error(`accepted a ${e.kind} for ${e.docId}`)
    if (ws.closeCode !== undefined && ![1003, 1008].includes(ws.closeCode))
      throw new Error(`closed with ${ws.closeCode}`)
    return messages.length
  },
}
