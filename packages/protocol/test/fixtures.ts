/** Shared test inputs for the protocol suites: sample envelopes and fast-check arbitraries. */
import { expect, vi } from 'vitest'
import fc from 'fast-check'
import { crc32, KIND_NAMES, type Envelope, type Kind } from '../src/index.ts'

export const DOC_ID = '0f8fad5b-d9cb-469f-a165-70867728950e'
export const SENDER_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
export const MESSAGE_ID = '00112233445566778899aabbccddeeff'

/** A valid envelope with small, recognisable fields; override any of them. */
export function sampleEnvelope(overrides: Partial<Envelope> = {}): Envelope {
  return {
    kind: 'update',
    flags: 0,
    docId: DOC_ID,
    senderId: SENDER_ID,
    messageId: MESSAGE_ID,
    seq: 7,
    payload: Uint8Array.of(1, 2, 3),
    ...overrides,
  }
}

/** Deterministic bytes: a cheap LCG so large payloads are fast to make and differ per seed. */
export function patternBytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed >>> 0 || 1
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    out[i] = x >>> 24
  }
  return out
}

const hex = (bytes: number): fc.Arbitrary<string> =>
  fc
    .uint8Array({ minLength: bytes, maxLength: bytes })
    .map((b) => Array.from(b, (v) => v.toString(16).padStart(2, '0')).join(''))

export const arbUuid: fc.Arbitrary<string> = hex(16).map(
  (h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
)
export const arbMessageId: fc.Arbitrary<string> = hex(16)

export function arbEnvelope(
  kinds: fc.Arbitrary<Kind> = fc.constantFrom(...KIND_NAMES),
  maxPayload = 512,
): fc.Arbitrary<Envelope> {
  return fc.record({
    kind: kinds,
    flags: fc.constantFrom(0, 1, 2, 3),
    docId: arbUuid,
    senderId: arbUuid,
    messageId: arbMessageId,
    seq: fc.oneof(fc.nat(300), fc.maxSafeNat()),
    payload: fc.uint8Array({ maxLength: maxPayload }),
  })
}

/** Runs `f` and returns the `code` of the error it throws; fails the test if it throws nothing. */
export function codeOf(f: () => unknown): string {
  try {
    f()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' ? `${(error as Error).name}:${code}` : `non-protocol error: ${String(error)}`
  }
  return 'no error'
}

/** Runs `f` and returns `code: message` of the error it throws (the text is what a test pins), or `no error`. */
export function failure(f: () => unknown): string {
  try {
    f()
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`
  }
  return 'no error'
}

/**
 * Asserts two byte arrays are equal. Vitest's deep equality walks large typed arrays element by
 * element and takes seconds per MiB; this reports the first differing offset instead.
 */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  let firstDifference = -1
  const n = Math.min(actual.length, expected.length)
  for (let i = 0; i < n; i++) {
    if (actual[i] !== expected[i]) {
      firstDifference = i
      break
    }
  }
  expect({ length: actual.length, firstDifference }).toEqual({ length: expected.length, firstDifference: -1 })
}

/**
 * Asserts `crc32` equals `reference` over all of `bytes` (a large buffer), over ranges that start
 * and end off any word boundary (the slice-by-16 steps and the byte tail), and over an empty range.
 */
export function expectCrc32AgreesAtOffsets(bytes: Uint8Array, reference: (bytes: Uint8Array) => number): void {
  for (const [start, end] of [
    [0, bytes.length],
    [3, bytes.length - 5],
    [1, 17],
    [7, 7],
  ] as const) {
    expect(crc32(bytes, start, end)).toBe(reference(bytes.subarray(start, end)))
  }
}

/**
 * `src/ids.ts` evaluated afresh: its id caches start empty, and its patterns are built while the
 * calling test runs (a mutation in them then shows in that test, not only at first import).
 */
export async function freshIds(): Promise<typeof import('../src/ids.ts')> {
  vi.resetModules()
  return import('../src/ids.ts')
}
