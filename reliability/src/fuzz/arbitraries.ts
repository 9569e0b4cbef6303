/** fast-check inputs for the fuzz targets: valid wire objects, then mutated (flips, cuts, splices). */
import { encodeBody, encodeEnvelope, type Envelope, KIND_NAMES, type Kind } from '@e2e-col/protocol'
import fc from 'fast-check'

const KINDS = KIND_NAMES as readonly Kind[]

export const uuid = fc.uuid({ version: 4 })
export const messageId = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex'))

export const envelope = (kinds: readonly Kind[] = KINDS, maxPayload = 300): fc.Arbitrary<Envelope> =>
  fc.record({
    kind: fc.constantFrom(...kinds),
    flags: fc.constantFrom(0, 1, 2, 3),
    docId: uuid,
    senderId: uuid,
    messageId,
    seq: fc.oneof(fc.nat(1000), fc.maxSafeNat()),
    payload: fc.uint8Array({ maxLength: maxPayload }),
  })

/** Applies a few random edits to `bytes`: bit flips, byte sets, a cut, an insertion. */
export const mutated = (base: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array> =>
  fc
    .tuple(
      base,
      fc.array(fc.tuple(fc.constantFrom('flip', 'set', 'cut', 'insert', 'dup'), fc.nat(), fc.nat(255)), {
        maxLength: 4,
      }),
    )
    .map(([b, edits]) => {
      let out = Uint8Array.from(b)
      for (const [op, at, v] of edits) {
        const i = out.length === 0 ? 0 : at % out.length
        if (op === 'flip' && out.length > 0) out[i] = (out[i] as number) ^ (1 << (v % 8))
        else if (op === 'set' && out.length > 0) out[i] = v
        else if (op === 'cut') out = out.slice(0, i)
        else if (op === 'insert') out = Uint8Array.from([...out.slice(0, i), v, ...out.slice(i)])
        else if (op === 'dup') out = Uint8Array.from([...out, ...out.slice(i)])
      }
      return out
    })

export const frameBytes = fc.oneof(
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 120 }).map((tail) => Uint8Array.from([0xe2, 0xc0, 1, ...tail])) },
  { weight: 4, arbitrary: mutated(envelope().map((e) => encodeEnvelope(e))) },
)

export const bodyText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ maxLength: 80 }).map((s) => `e2e-col:v1:${s}`),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `e2e-col:${s}`),
  mutated(envelope().map((e) => new TextEncoder().encode(encodeBody(encodeEnvelope(e))))).map((b) =>
    new TextDecoder().decode(b),
  ),
)
