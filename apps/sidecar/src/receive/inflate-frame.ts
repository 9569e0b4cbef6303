/**
 * The receive side of payload compression: an envelope with the `deflated` flag gets its payload
 * inflated, never beyond `maxPayloadBytes` (a small body must not expand into gigabytes), and the
 * flag cleared, so replica and browsers only ever see plain envelopes.
 * @see docs/protocol.md §3.4, sidecar.md §4.6
 */
import { inflateRawSync } from 'node:zlib'
import { encodeEnvelope, FLAGS, type Envelope } from '@e2e-col/protocol'

export type Inflated =
  | { readonly ok: true; readonly frame: Uint8Array; readonly envelope: Envelope }
  | { readonly ok: false; readonly reason: 'inflate-failed' | 'inflate-too-large' }

export const isDeflated = (env: Envelope): boolean => (env.flags & FLAGS.deflated) !== 0

export function inflateFrame(env: Envelope, maxPayloadBytes: number): Inflated {
  let payload: Uint8Array
  try {
    payload = new Uint8Array(inflateRawSync(env.payload, { maxOutputLength: maxPayloadBytes }))
  } catch (error) {
    // Node reports an output over maxOutputLength as ERR_BUFFER_TOO_LARGE; anything else is corrupt.
    return {
      ok: false,
      reason: (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'inflate-too-large' : 'inflate-failed',
    }
  }
  const envelope: Envelope = { ...env, flags: env.flags & ~FLAGS.deflated, payload }
  return { ok: true, frame: encodeEnvelope(envelope), envelope }
}
