/** What the toy accepted as Signal sends: counted the same whether the toy runs here or in a child. */
import { createReassembler, decodeBody, decodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import type { SendRecord } from '@e2e-col/toy-signal'

/** What sidecar A's bodies carried: edits, or the replica's own sync traffic (timing-dependent). */
export interface SendsByPurpose {
  /** Distinct bodies carrying at least one `update` or `snapshot` (whole, a chunk of it, or as an attachment). */
  readonly edits: number
  /** UTF-8 bytes of those bodies. */
  readonly editBytes: number
  /** Distinct bodies carrying only `sync-request` / `sync-response` (gap repair, answers). */
  readonly sync: number
  /** Distinct bodies carrying anything else. */
  readonly other: number
  /** Bodies identical to an earlier one: resends after an ambiguous (timed-out) send. */
  readonly resent: number
}

export interface SendCounts {
  /** Sends (bodies) by both sidecars, and their UTF-8 bytes. */
  readonly count: number
  readonly bytes: number
  /** Sends by `accountA`'s sidecar: the messages the edits cost. */
  readonly byA: number
  readonly bytesA: number
  readonly byAPurpose: SendsByPurpose
  /** Requests Signal's pace refused so far (or would have, when the toy only counts). */
  readonly refused: { readonly messages: number; readonly attachments: number }
}

type Purpose = 'edits' | 'sync' | 'other'
const RANK: Record<Purpose, number> = { other: 0, sync: 1, edits: 2 }

function purposeOf(kind: Envelope['kind']): Purpose {
  // An attachment reference carries a whole large frame: on the replay, a burst of edits.
  if (kind === 'update' || kind === 'snapshot' || kind === 'attachment') return 'edits'
  if (kind === 'sync-request' || kind === 'sync-response') return 'sync'
  return 'other'
}

/** Labels each distinct body by what it carried; a chunked message labels all its bodies at once. */
export function classifyBodies(messages: readonly string[]): SendsByPurpose {
  const reassembler = createReassembler({ maxPartialMessages: 1 << 16, maxPartialBytes: 1 << 30, ttlMs: 2 ** 40 })
  const seen = new Set<string>()
  const labels: Purpose[] = []
  const distinct: string[] = []
  const bodiesOfMessage = new Map<string, number[]>()
  let resent = 0
  const label = (body: number, purpose: Purpose): void => {
    const current = labels[body]
    if (current === undefined || RANK[purpose] > RANK[current]) labels[body] = purpose
  }
  const visit = (body: number, env: Envelope): void => {
    if (env.kind === 'batch') return void unpackBatch(env).forEach((inner) => visit(body, inner))
    if (env.kind !== 'chunk') return label(body, purposeOf(env.kind))
    const key = `${env.senderId}/${env.messageId}`
    const bodies = bodiesOfMessage.get(key) ?? []
    bodies.push(body)
    bodiesOfMessage.set(key, bodies)
    const r = reassembler.push(env, 0)
    if (r.status !== 'complete') return
    for (const b of bodies) label(b, purposeOf(r.envelope.kind))
    bodiesOfMessage.delete(key)
  }
  for (const message of messages) {
    if (seen.has(message)) {
      resent += 1
      continue
    }
    seen.add(message)
    distinct.push(message)
    const body = labels.length
    labels.push('other')
    visit(body, decodeEnvelope(decodeBody(message)))
  }
  const count = (p: Purpose): number => labels.filter((l) => l === p).length
  const editBytes = distinct.reduce((sum, m, i) => (labels[i] === 'edits' ? sum + Buffer.byteLength(m) : sum), 0)
  return { edits: count('edits'), editBytes, sync: count('sync'), other: count('other'), resent }
}

export function countSends(
  sends: readonly SendRecord[],
  accountA: string,
  refused: { messages: number; attachments: number } = { messages: 0, attachments: 0 },
): SendCounts {
  let bytes = 0
  let bytesA = 0
  const messagesA: string[] = []
  for (const s of sends) {
    const length = Buffer.byteLength(s.message)
    bytes += length
    if (s.account !== accountA) continue
    messagesA.push(s.message)
    bytesA += length
  }
  return { count: sends.length, bytes, byA: messagesA.length, bytesA, byAPurpose: classifyBodies(messagesA), refused }
}
