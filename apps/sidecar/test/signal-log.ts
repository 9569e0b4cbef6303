/** Reads back what a toy daemon was asked to send: every envelope inside every e2e-col body. */
import { BODY_PREFIX, decodeBody, decodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'

export interface SentEnvelope {
  account: string
  envelope: Envelope
}

/** The envelopes of `toy.sends()` from index `from` on, batches unpacked (chunks left as they are). */
export function sentEnvelopes(toy: ToySignal, from = 0): SentEnvelope[] {
  const out: SentEnvelope[] = []
  for (const s of toy.sends().slice(from)) {
    if (!s.message.startsWith(BODY_PREFIX)) continue
    const env = decodeEnvelope(decodeBody(s.message))
    if (env.kind === 'batch') for (const inner of unpackBatch(env)) out.push({ account: s.account, envelope: inner })
    else out.push({ account: s.account, envelope: env })
  }
  return out
}
