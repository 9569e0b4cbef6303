import { decodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createLogger } from '../ops/logger.ts'
import { createMetrics } from '../ops/metrics.ts'
import type { Delivery } from '../send/delivery.ts'
import type { QueuedEnvelope, SendQueue } from '../send/queue.ts'
import { DOC, envelopeFrame, SENDER } from '../send/send-fixture.ts'
import { createKeptChanges } from './kept-changes.ts'
import type { ChangeStore } from './ports.ts'

/** Kept changes over an outbox holding `rows`, whose sends had begun for the ids in `begun`. */
function keptOver(rows: { frame: Uint8Array; messageId: string }[], begun: ReadonlySet<string>) {
  const heard: string[] = []
  const queued: QueuedEnvelope[] = []
  const store = {
    senderOf: (id: string) => (begun.has(id) ? { known: true as const, sender: SENDER } : { known: false as const }),
    kept: () => rows,
    dropUnsent: (ids: readonly string[]) => void heard.push(`drop ${ids.join(',')}`),
  } as unknown as ChangeStore
  const queue = { enqueue: (item: QueuedEnvelope) => queued.push(item) > 0 } as unknown as SendQueue
  const delivery = {
    sent: (id: string) => void heard.push(`sent ${id}`),
    refused: (reason: string) => void heard.push(`refused ${reason}`),
  } as unknown as Delivery
  let n = 0
  const ownSent = (kind: Kind, payload: Uint8Array): Envelope => {
    heard.push('marked sent')
    return { kind, flags: 0, docId: DOC, senderId: SENDER, messageId: `${++n}`.padStart(32, '0'), seq: n, payload }
  }
  const kept = createKeptChanges({
    docId: DOC,
    store,
    queue,
    delivery,
    ownSent,
    maxFrameBytes: 1 << 20,
    metrics: createMetrics(),
    logger: createLogger('silent'),
  })
  return { kept, heard, queued }
}

describe('changes a previous run kept', () => {
  it('go out again as they were when their send had not begun', () => {
    const row = envelopeFrame(Uint8Array.of(1, 2, 3))
    const { kept, heard, queued } = keptOver([row], new Set())
    kept.resume()
    expect(queued.map((q) => q.messageId)).toEqual([row.messageId])
    expect(queued[0]?.frame).toBe(row.frame)
    queued[0]?.owner.ack(row.messageId)
    expect(heard).toEqual([`sent ${row.messageId}`])
  })

  it('go out under a fresh id when their send had begun, the verdict still told under the kept id', () => {
    const row = envelopeFrame(Uint8Array.of(4, 5, 6))
    const { kept, heard, queued } = keptOver([row], new Set([row.messageId]))
    kept.resume()
    const item = queued[0] as QueuedEnvelope
    expect(item.messageId).not.toBe(row.messageId)
    const fresh = decodeEnvelope(item.frame)
    expect(fresh.messageId).toBe(item.messageId)
    expect(fresh.payload).toEqual(Uint8Array.of(4, 5, 6))
    expect(heard).toEqual(['marked sent'])
    item.owner.ack(item.messageId)
    item.owner.reject(item.messageId, 'SIDECAR_SEND_REJECTED', 'no')
    expect(heard.slice(1)).toEqual([`sent ${row.messageId}`, `drop ${row.messageId}`, 'refused no'])
  })

  it('a refused change leaves the outbox and tells its page and the others', () => {
    const { kept, heard } = keptOver([], new Set())
    const refusals: string[] = []
    const page = { refuse: (code: string, message: string) => void refusals.push(`${code} ${message}`) }
    kept.ownerFor(page as never).reject('ab'.repeat(16), 'SIDECAR_SEND_REJECTED', 'untrusted identity')
    expect(heard).toEqual([`drop ${'ab'.repeat(16)}`, 'refused untrusted identity'])
    expect(refusals).toEqual(['SIDECAR_SEND_REJECTED untrusted identity'])
  })

  it('several kept changes are merged into one update, and each is told sent with it', () => {
    const rows = ['a', 'b', 'c'].map((text) => envelopeFrame(yjsInsert(text)))
    const { kept, heard, queued } = keptOver(rows, new Set())
    kept.resume()
    expect(queued).toHaveLength(1)
    const merged = queued[0] as QueuedEnvelope
    const doc = new Y.Doc()
    Y.applyUpdate(doc, decodeEnvelope(merged.frame).payload)
    expect(doc.getText('t').toString().split('').sort()).toEqual(['a', 'b', 'c'])
    merged.owner.ack(merged.messageId)
    expect(heard.filter((h) => h.startsWith('sent')).sort()).toEqual(rows.map((r) => `sent ${r.messageId}`).sort())
  })
})

/** A Yjs update of one insert, from a fresh client each time. */
function yjsInsert(text: string): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}
