/**
 * Protocol benchmark at Signal's 2000-byte body boundary, for 1 KiB, 64 KiB and 1 MiB payloads:
 * - send: encodeEnvelope → chunk → bodies (`encodeBodies`);
 * - receive: per body decodeBodyInto (one reused scratch) → decodeEnvelope → reassembler push, then
 *   decodeEnvelope of the frame; "recv fresh" is the same with decodeBody (fresh bytes per body);
 * each in two modes: "native" (what the sidecar runs: its own `NODE_CODECS`, Node's Buffer base64 and
 * zlib CRC-32, plugged in with `usePlatformCodecs`) and "portable" (the package's own pure code, as in
 * a browser).
 *
 * Baselines, measured in the same round as the figure they divide (ratio = baseline time / our time):
 * - send ratio: `Buffer.from(payload).toString('base64')` on the whole payload;
 * - receive ratio: `Buffer.from(b, 'base64')` on each body's base64, one body at a time (the same bodies
 *   we decode); the stricter "vs whole" ratio uses `Buffer.from(payloadBase64, 'base64')` in one call.
 * Wire efficiency: payload bytes / total body bytes (UTF-8), the base64 ceiling being 0.75.
 * Every mode is first checked to round-trip the exact bytes and to produce identical bodies.
 * Figures are medians over ROUNDS rounds, with min and max. Not a test: numbers vary with the machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import {
  BODY_PREFIX,
  bodyByteLength,
  createReassembler,
  decodeBody,
  decodeBodyInto,
  decodeEnvelope,
  encodeBodies,
  encodeEnvelope,
  usePlatformCodecs,
  type Envelope,
} from '@e2e-col/protocol'
import { NODE_CODECS } from '@e2e-col/sidecar/internals'

const BOUNDARY = 2000
const SIZES = [
  { label: '1 KiB', bytes: 1024 },
  { label: '64 KiB', bytes: 64 * 1024 },
  { label: '1 MiB', bytes: 1024 * 1024 },
]
const ROUNDS = 7
/** Each timing repeats its call for at least this long (after a warm-up) and takes the mean. */
const SAMPLE_MS = 120

const MODES = [
  { mode: 'native', codecs: NODE_CODECS },
  { mode: 'portable', codecs: {} },
] as const

// A full collection before each timing, so one measurement's garbage is not collected on the next
// one's clock (each still pays for the garbage it makes itself).
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

/** Mean milliseconds per call of `f` over at least SAMPLE_MS and 3 calls, after a warm-up. */
function timePerCall(f: () => unknown): number {
  collectGarbage()
  for (let i = 0; i < 3; i++) f()
  let calls = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < SAMPLE_MS || calls < 3) {
    f()
    calls++
    elapsed = performance.now() - start
  }
  return elapsed / calls
}

interface Stat {
  median: number
  min: number
  max: number
}
function stat(values: number[]): Stat {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
  return { median, min: sorted[0] ?? 0, max: sorted.at(-1) ?? 0 }
}

const mibPerSecond = (bytes: number, ms: number): number => bytes / (1024 * 1024) / (ms / 1000)

function makeEnvelope(bytes: number): Envelope {
  return {
    kind: 'update',
    flags: 0,
    docId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    messageId: randomBytes(16).toString('hex'),
    seq: 1,
    payload: new Uint8Array(randomBytes(bytes)),
  }
}

function send(envelope: Envelope): string[] {
  return encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: BOUNDARY })
}

// One scratch for every chunk body: the reassembler copies what it keeps (a receiver's pattern).
const scratch = new Uint8Array(BOUNDARY)

/** The receive path; returns the decoded original envelope. `fresh`: decodeBody instead of decodeBodyInto. */
function receive(bodies: readonly string[], fresh = false): Envelope {
  const only = bodies.length === 1 ? bodies[0] : undefined
  if (only !== undefined) return decodeEnvelope(decodeBody(only))
  const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8 * 1024 * 1024, ttlMs: 60_000 })
  for (const body of bodies) {
    const result = r.push(decodeEnvelope(fresh ? decodeBody(body) : decodeBodyInto(body, scratch)), 0)
    if (result.status === 'complete') return decodeEnvelope(result.frame)
  }
  throw new Error('benchmark message did not complete')
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0
}

/** One payload size: correctness checks, then ROUNDS rounds of interleaved timings. */
function runSize(label: string, bytes: number) {
  const envelope = makeEnvelope(bytes)
  const frame = encodeEnvelope(envelope)
  usePlatformCodecs({})
  const reference = send(envelope)
  // Correctness before timing: every mode yields the same bodies and the exact bytes back.
  for (const { mode, codecs } of MODES) {
    usePlatformCodecs(codecs)
    const bodies = send(envelope)
    if (bodies.length !== reference.length || bodies.some((b, i) => b !== reference[i]))
      throw new Error(`${mode}: bodies differ`)
    for (const fresh of [false, true]) {
      const back = receive(bodies, fresh)
      if (!sameBytes(back.payload, envelope.payload) || !sameBytes(encodeEnvelope(back), frame))
        throw new Error(`${mode}: round trip differs`)
    }
  }
  usePlatformCodecs({})
  const bodyBytes = reference.reduce((sum, b) => sum + bodyByteLength(b), 0)
  const bodyBase64 = reference.map((b) => b.slice(BODY_PREFIX.length))
  const payloadBase64 = Buffer.from(envelope.payload).toString('base64')

  const samples = {
    nativeEncode: [] as number[],
    nativeDecode: [] as number[],
    nativeDecodeBodies: [] as number[],
    nativeReceiveFresh: [] as number[],
    ...Object.fromEntries(
      MODES.flatMap(({ mode }) => [
        [`${mode}Send`, [] as number[]],
        [`${mode}Receive`, [] as number[]],
      ]),
    ),
  } as Record<string, number[]>
  const ratios: Record<string, number[]> = {}
  const push = (key: string, value: number): void => {
    ;(ratios[key] ??= []).push(value)
  }
  for (let round = 0; round < ROUNDS; round++) {
    const nativeEncode = timePerCall(() => Buffer.from(envelope.payload).toString('base64'))
    const nativeDecode = timePerCall(() => Buffer.from(payloadBase64, 'base64'))
    const nativeDecodeBodies = timePerCall(() => {
      for (const t of bodyBase64) Buffer.from(t, 'base64')
    })
    samples['nativeEncode']?.push(nativeEncode)
    samples['nativeDecode']?.push(nativeDecode)
    samples['nativeDecodeBodies']?.push(nativeDecodeBodies)
    for (const { mode, codecs } of MODES) {
      usePlatformCodecs(codecs)
      const s = timePerCall(() => send(envelope))
      const r = timePerCall(() => receive(reference))
      samples[`${mode}Send`]?.push(s)
      samples[`${mode}Receive`]?.push(r)
      push(`${mode}SendRatio`, nativeEncode / s)
      push(`${mode}ReceiveRatio`, nativeDecodeBodies / r)
      push(`${mode}ReceiveRatioVsWhole`, nativeDecode / r)
      if (mode === 'native') {
        const rf = timePerCall(() => receive(reference, true))
        samples['nativeReceiveFresh']?.push(rf)
        push('nativeReceiveFreshRatio', nativeDecodeBodies / rf)
      }
    }
    usePlatformCodecs({})
  }
  const ms = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stat(v)]))
  const mibps = Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, stat(v.map((t) => mibPerSecond(bytes, t)))]),
  )
  return {
    size: label,
    payloadBytes: bytes,
    bodies: reference.length,
    bodyBytes,
    efficiency: bytes / bodyBytes,
    msPerCall: ms,
    mibPerSecond: mibps,
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, stat(v)])),
  }
}

const f = (n: number | undefined, digits = 1): string => (n ?? 0).toFixed(digits)
const range = (s: Stat | undefined, digits = 2): string =>
  `${f(s?.median, digits)} (${f(s?.min, digits)}–${f(s?.max, digits)})`

/** Runs the protocol benchmark, prints the tables and writes bench/results/protocol.json. */
export function benchProtocol(): void {
  const rows = SIZES.map((s) => runSize(s.label, s.bytes))
  console.log(`\nprotocol @ ${BOUNDARY}-byte bodies, node ${process.version}; medians of ${ROUNDS} rounds (min–max)`)
  console.log('send ratio = Buffer.from(payload).toString("base64") time / send time;')
  console.log(
    'recv ratio = Buffer.from(body, "base64") on each body, time / receive time; "vs whole" = one Buffer.from(payloadBase64) call;',
  )
  console.log(
    '"fresh" = the same receive with decodeBody (fresh bytes per body) instead of decodeBodyInto (one reused scratch).\n',
  )
  console.log(
    '| payload | mode | bodies | send MiB/s | send ratio | recv MiB/s | recv ratio | recv ratio (fresh) | recv ratio vs whole | efficiency |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    for (const { mode } of MODES) {
      console.log(
        `| ${r.size} | ${mode} | ${r.bodies} | ${f(r.mibPerSecond[`${mode}Send`]?.median)} | ${range(r.ratios[`${mode}SendRatio`])} | ` +
          `${f(r.mibPerSecond[`${mode}Receive`]?.median)} | ${range(r.ratios[`${mode}ReceiveRatio`])} | ` +
          `${mode === 'native' ? range(r.ratios['nativeReceiveFreshRatio']) : '—'} | ` +
          `${range(r.ratios[`${mode}ReceiveRatioVsWhole`])} | ${f(r.efficiency, 3)} |`,
      )
    }
  }
  console.log('\n| payload | native enc MiB/s | native dec (whole) MiB/s | native dec (per body) MiB/s |')
  console.log('|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.size} | ${f(r.mibPerSecond['nativeEncode']?.median)} | ${f(r.mibPerSecond['nativeDecode']?.median)} | ${f(r.mibPerSecond['nativeDecodeBodies']?.median)} |`,
    )
  }
  const big = rows.at(-1)
  const targets = {
    mode: 'native (the sidecar’s NODE_CODECS: Buffer base64 + zlib CRC-32), receiving through decodeBodyInto',
    receiveFreshRatioFor1MiB: big?.ratios['nativeReceiveFreshRatio']?.median ?? 0,
    sendRatioAtLeast0_5For1MiB: (big?.ratios['nativeSendRatio']?.median ?? 0) >= 0.5,
    receiveRatioAtLeast0_5For1MiB: (big?.ratios['nativeReceiveRatio']?.median ?? 0) >= 0.5,
    receiveRatioVsWholeAtLeast0_5For1MiB: (big?.ratios['nativeReceiveRatioVsWhole']?.median ?? 0) >= 0.5,
    efficiencyAtLeast0_70: rows.filter((r) => r.bodies > 1).every((r) => r.efficiency >= 0.7),
  }
  console.log('\ntargets (1 MiB, medians):', targets)
  const out = new URL('results/', import.meta.url)
  mkdirSync(out, { recursive: true })
  writeFileSync(
    new URL('protocol.json', out),
    `${JSON.stringify(
      {
        node: process.version,
        boundary: BOUNDARY,
        rounds: ROUNDS,
        measuredAt: new Date().toISOString(),
        baselines: {
          send: "Buffer.from(payload).toString('base64'), whole payload, same round",
          receive: "Buffer.from(bodyBase64, 'base64') for each body of the same message, same round",
          receivePath: 'decodeBodyInto (one reused scratch) → decodeEnvelope → push; receiveFresh: decodeBody instead',
          receiveVsWhole: "Buffer.from(payloadBase64, 'base64'), whole payload in one call, same round",
        },
        rows,
        targets,
      },
      null,
      2,
    )}\n`,
  )
}
