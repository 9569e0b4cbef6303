/**
 * Fuzz targets of the pure codecs: decoders must throw only `ProtocolError` and, when they accept,
 * accept only the canonical form (re-encoding gives the input back). The reassembler must stay
 * within its bounds after every push and only ever complete a frame that was really sent.
 */
import {
  chunkFrame,
  createReassembler,
  decodeBody,
  decodeEnvelope,
  encodeBody,
  encodeEnvelope,
  isProtocolError,
  packBatch,
  unpackBatch,
  type Envelope,
} from '@e2e-col/protocol'
import fc from 'fast-check'
import { bodyText, envelope, frameBytes, mutated } from './arbitraries.ts'
import type { FuzzTarget } from './target.ts'

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

function onlyProtocolErrors(fn: () => void): void {
  try {
    fn()
  } catch (error) {
    if (!isProtocolError(error)) throw error
  }
}

export const envelopeDecoding: FuzzTarget<Uint8Array> = {
  name: 'envelope decoding',
  arbitrary: frameBytes,
  check(bytes) {
    onlyProtocolErrors(() => {
      const env = decodeEnvelope(bytes, { maxPayloadBytes: 1 << 16 })
      if (!equal(encodeEnvelope(env), bytes)) throw new Error('accepted a non-canonical frame')
    })
  },
}

export const bodyDecoding: FuzzTarget<string> = {
  name: 'body decoding',
  arbitrary: bodyText,
  check(text) {
    onlyProtocolErrors(() => {
      const frame = decodeBody(text)
      if (encodeBody(frame) !== text) throw new Error('accepted a non-canonical body')
    })
  },
}

const batchHeader = {
  docId: '6f1c0c1e-0000-4000-8000-000000000001',
  senderId: '6f1c0c1e-0000-4000-8000-000000000002',
  messageId: '00'.repeat(16),
  seq: 1,
}
export const batchUnpacking: FuzzTarget<Uint8Array> = {
  name: 'batch unpacking',
  arbitrary: mutated(
    fc.array(envelope(['update', 'awareness', 'health', 'sync-request'], 60), { minLength: 1, maxLength: 6 }).map(
      (envs) =>
        packBatch(
          { ...batchHeader, flags: 0 },
          envs.map((e) => encodeEnvelope(e)),
          { maxBodyBytes: 4000 },
        ).frame,
    ),
  ),
  check(bytes) {
    onlyProtocolErrors(() => {
      const env = decodeEnvelope(bytes)
      for (const inner of unpackBatch(env))
        if (inner.kind === 'batch' || inner.kind === 'ack' || inner.kind === 'error')
          throw new Error(`batch held ${inner.kind}`)
    })
  },
}

const BOUNDS = { maxPartialMessages: 4, maxPartialBytes: 2048, ttlMs: 1000, maxFinishedMessages: 64 }
type ChunkOp = { kind: 'chunk'; env: Envelope } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'tick'; ms: number }

/** A few messages chunked at a small boundary, their chunks shuffled, duplicated, mutated, mixed with junk. */
const chunkOps: fc.Arbitrary<{ originals: Uint8Array[]; ops: ChunkOp[] }> = fc
  .array(envelope(['update', 'snapshot'], 900), { minLength: 1, maxLength: 4 })
  .chain((envs) => {
    const originals = envs.map((e) => encodeEnvelope(e))
    const chunks = originals.flatMap((f) => (f.length > 200 ? chunkFrame(f, { maxBodyBytes: 256 }) : []))
    const chunkArb = chunks.length === 0 ? fc.constant(originals[0] as Uint8Array) : fc.constantFrom(...chunks)
    const op: fc.Arbitrary<ChunkOp> = fc.oneof(
      { weight: 6, arbitrary: chunkArb.map((bytes) => ({ kind: 'bytes', bytes }) as ChunkOp) },
      { weight: 2, arbitrary: mutated(chunkArb).map((bytes) => ({ kind: 'bytes', bytes }) as ChunkOp) },
      { weight: 1, arbitrary: envelope(['chunk'], 120).map((env) => ({ kind: 'chunk', env }) as ChunkOp) },
      { weight: 1, arbitrary: fc.nat(600).map((ms) => ({ kind: 'tick', ms }) as ChunkOp) },
    )
    return fc.record({ originals: fc.constant(originals), ops: fc.array(op, { maxLength: 40 }) })
  })

export const reassembly: FuzzTarget<{ originals: Uint8Array[]; ops: ChunkOp[] }> = {
  name: 'reassembly',
  arbitrary: chunkOps,
  check({ originals, ops }) {
    const r = createReassembler(BOUNDS)
    let now = 0
    for (const op of ops) {
      if (op.kind === 'tick') {
        now += op.ms
        r.sweep(now)
        continue
      }
      let env: Envelope
      try {
        env = op.kind === 'chunk' ? op.env : decodeEnvelope(op.bytes)
      } catch (error) {
        if (!isProtocolError(error)) throw error
        continue
      }
      onlyProtocolErrors(() => {
        const res = r.push(env, now)
        if (res.status === 'complete' && !originals.some((o) => equal(o, res.frame)))
          throw new Error('completed a frame nobody sent')
      })
      if (r.partialBytes > BOUNDS.maxPartialBytes || r.partialMessages > BOUNDS.maxPartialMessages) {
        throw new Error(`bounds exceeded: ${r.partialMessages} messages, ${r.partialBytes} bytes`)
      }
    }
  },
}
