/**
 * Protocol benchmark: throughput of the send path (encodeEnvelope → chunk → bodies) and the receive
 * path (decodeBody → decodeEnvelope → reassemble → decodeEnvelope) at Signal's 2000-byte body
 * boundary, each beside Node's native base64 on the same bytes in the same run, plus wire efficiency.
 * Prints a table and writes bench/results/protocol.json. Not a test: numbers vary with the machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import {
  bodyByteLength,
  createReassembler,
  decodeBody,
  decodeEnvelope,
  encodeBodies,
  encodeEnvelope,
  type Envelope,
} from '@e2e-col/protocol'

const BOUNDARY = 2000
const SIZES = [
  { label: '1 KiB', bytes: 1024 },
  { label: '64 KiB', bytes: 64 * 1024 },
  { label: '1 MiB', bytes: 1024 * 1024 },
]
const MIN_MS = 400

/** Mean milliseconds per call of `f`, after a warm-up, over at least MIN_MS and 5 calls. */
function timePerCall(f: () => unknown): number {
  for (let i = 0; i < 3; i++) f()
  let calls = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < MIN_MS || calls < 5) {
    f()
    calls++
    elapsed = performance.now() - start
  }
  return elapsed / calls
}

/** One row of the results table; throughputs in MiB/s of payload, ratios native time / our time. */
interface Row {
  payloadBytes: number
  bodies: number
  bodyBytes: number
  sendMiBps: number
  receiveMiBps: number
  nativeEncodeMiBps: number
  nativeDecodeMiBps: number
  sendRatio: number
  receiveRatio: number
  sendRatioPerBody: number
  receiveRatioPerBody: number
  efficiency: number
}

const fmt = (n: number, digits = 1): string => n.toFixed(digits)
const mibPerSecond = (bytes: number, ms: number): number => bytes / (1024 * 1024) / (ms / 1000)

function run(bytes: number): Row {
  const envelope: Envelope = {
    kind: 'update',
    flags: 0,
    docId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    messageId: randomBytes(16).toString('hex'),
    seq: 1,
    payload: new Uint8Array(randomBytes(bytes)),
  }
  const bodies = encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: BOUNDARY })
  const bodyBytes = bodies.reduce((sum, b) => sum + bodyByteLength(b), 0)
  const base64Texts = bodies.map((b) => b.slice('e2e-col:v1:'.length))
  const payloadBase64 = Buffer.from(envelope.payload).toString('base64')

  const send = timePerCall(() => encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: BOUNDARY }))
  const receive = timePerCall(() => {
    if (bodies.length === 1) return decodeEnvelope(decodeBody(bodies[0] ?? ''))
    const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8 * 1024 * 1024, ttlMs: 60_000 })
    for (const body of bodies) {
      const result = r.push(decodeEnvelope(decodeBody(body)), 0)
      if (result.status === 'complete') return decodeEnvelope(result.frame)
    }
    throw new Error('benchmark message did not complete')
  })
  // Native baselines on the same bytes: the whole payload in one call, and the same per-body pieces.
  const nativeEncode = timePerCall(() => Buffer.from(envelope.payload).toString('base64'))
  const nativeDecode = timePerCall(() => Buffer.from(payloadBase64, 'base64'))
  const nativeEncodeBodies = timePerCall(() => {
    for (const t of base64Texts) Buffer.from(t, 'base64').toString('base64')
  })
  const nativeDecodeBodies = timePerCall(() => {
    for (const t of base64Texts) Buffer.from(t, 'base64')
  })
  return {
    payloadBytes: bytes,
    bodies: bodies.length,
    bodyBytes,
    sendMiBps: mibPerSecond(bytes, send),
    receiveMiBps: mibPerSecond(bytes, receive),
    nativeEncodeMiBps: mibPerSecond(bytes, nativeEncode),
    nativeDecodeMiBps: mibPerSecond(bytes, nativeDecode),
    sendRatio: nativeEncode / send,
    receiveRatio: nativeDecode / receive,
    // Per-body baseline: native decode then re-encode of each body's base64 stands in for the
    // native cost of producing those bodies; native decode of each body for the receive side.
    sendRatioPerBody: Math.max(0, nativeEncodeBodies - nativeDecodeBodies) / send,
    receiveRatioPerBody: nativeDecodeBodies / receive,
    efficiency: bytes / bodyBytes,
  }
}

/** Runs the protocol benchmark, prints the table and writes bench/results/protocol.json. */
export function benchProtocol(): void {
  const rows = SIZES.map((s) => ({ size: s.label, ...run(s.bytes) }))
  console.log(`\nprotocol @ ${BOUNDARY}-byte bodies (node ${process.version})\n`)
  console.log('| payload | bodies | send MiB/s | native enc MiB/s | send ratio | recv MiB/s | native dec MiB/s | recv ratio | recv ratio per body | efficiency |')
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.size} | ${r.bodies} | ${fmt(r.sendMiBps)} | ${fmt(r.nativeEncodeMiBps)} | ${fmt(r.sendRatio, 2)} | ${fmt(r.receiveMiBps)} | ${fmt(r.nativeDecodeMiBps)} | ${fmt(r.receiveRatio, 2)} | ${fmt(r.receiveRatioPerBody, 2)} | ${fmt(r.efficiency, 3)} |`,
    )
  }
  const big = rows.at(-1)
  const targets = {
    sendRatioAtLeast0_5For1MiB: (big?.sendRatio ?? 0) >= 0.5,
    receiveRatioAtLeast0_5For1MiB: (big?.receiveRatio ?? 0) >= 0.5,
    efficiencyAtLeast0_70: rows.filter((r) => r.bodies > 1).every((r) => (r.efficiency ?? 0) >= 0.7),
  }
  console.log('\ntargets:', targets)
  const out = new URL('results/', import.meta.url)
  mkdirSync(out, { recursive: true })
  writeFileSync(
    new URL('protocol.json', out),
    `${JSON.stringify({ node: process.version, boundary: BOUNDARY, measuredAt: new Date().toISOString(), rows, targets }, null, 2)}\n`,
  )
}
