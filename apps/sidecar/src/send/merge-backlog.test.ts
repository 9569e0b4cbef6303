import { decodeEnvelope, type Kind } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mergeBacklog } from './merge-backlog.ts'
import type { QueuedEnvelope } from './queue.ts'
import { envelopeFrame, recordingOwner } from './send-fixture.ts'

/** What each owner heard, as `ack <id>` or `reject <id> <code> <message>`. */
function recorder() {
  const heard: string[] = []
  const envelope = (kind: Kind, payload: Uint8Array): QueuedEnvelope => ({
    ...envelopeFrame(payload, { kind }),
    owner: recordingOwner(heard),
  })
  return { heard, envelope }
}

/** `n` Yjs updates of one document, each typing one more word. */
function typing(n: number): Uint8Array[] {
  const doc = new Y.Doc()
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (let i = 0; i < n; i++) doc.getText('t').insert(doc.getText('t').length, `word${i} `)
  return updates
}

const textOf = (payloads: readonly Uint8Array[]): string => {
  const doc = new Y.Doc()
  for (const p of payloads) Y.applyUpdate(doc, p)
  return doc.getText('t').toString()
}

/** A merge whose wrapped envelopes are recorded. */
function merging(maxPayloadBytes: number) {
  const wrapped: string[] = []
  const merged: number[] = []
  const kinds: Kind[] = []
  const options = {
    maxPayloadBytes,
    wrap: (payload: Uint8Array, kind: 'update' | 'sync-response') => {
      const wrap = envelopeFrame(payload, { seq: 0 })
      wrapped.push(wrap.messageId)
      kinds.push(kind)
      return wrap
    },
    onMerged: (n: number) => void merged.push(n),
  }
  return { wrapped, merged, kinds, options }
}

const payloadOf = (q: QueuedEnvelope): Uint8Array => decodeEnvelope(q.frame).payload
const kindOf = (q: QueuedEnvelope): Kind => decodeEnvelope(q.frame).kind

describe('mergeBacklog', () => {
  it('merges the Yjs updates of a backlog into one envelope with the same content, and tells every owner under its own id', () => {
    const { heard, envelope } = recorder()
    const updates = typing(30)
    const waiting = [
      envelope('update', updates[0] as Uint8Array),
      envelope('sync-response', updates[1] as Uint8Array),
      envelope('snapshot', updates[2] as Uint8Array),
      ...updates.slice(3).map((u) => envelope('update', u)),
    ]
    const m = merging(1 << 20)
    const out = mergeBacklog(waiting, m.options)
    expect(out).toHaveLength(1)
    const [one] = out as [QueuedEnvelope]
    expect(one.messageId).toBe(m.wrapped[0])
    expect(textOf([payloadOf(one)])).toBe(textOf(updates))
    expect(m.merged).toEqual([30])
    // A sync answer in the merge may carry others' writing: it is not sent as this account's update.
    expect(m.kinds).toEqual(['sync-response'])

    one.owner.ack(one.messageId)
    expect(heard).toEqual(waiting.map((w) => `ack ${w.messageId}`))
    heard.length = 0
    one.owner.reject(one.messageId, 'SIDECAR_SEND_REJECTED', 'Untrusted identity')
    expect(heard).toEqual(waiting.map((w) => `reject ${w.messageId} SIDECAR_SEND_REJECTED Untrusted identity`))
  })

  it('drops presence, keeps only the newest sync-request (last), and keeps health and unreadable frames as they are', () => {
    const { envelope } = recorder()
    const updates = typing(2)
    const u0 = envelope('update', updates[0] as Uint8Array)
    const u1 = envelope('update', updates[1] as Uint8Array)
    const presence = envelope('awareness', new Uint8Array([1, 2, 3]))
    const oldAsk = envelope('sync-request', new Uint8Array([0]))
    const newAsk = envelope('sync-request', new Uint8Array([1]))
    const health = envelope('health', new Uint8Array([9]))
    const garbage: QueuedEnvelope = { ...envelope('update', new Uint8Array(4)), frame: new Uint8Array([1, 2, 3]) }
    const m = merging(1 << 20)
    const out = mergeBacklog([oldAsk, u0, presence, health, garbage, newAsk, u1], m.options)
    expect(out).toHaveLength(4)
    expect(out[0]?.messageId).toBe(m.wrapped[0])
    expect(textOf([payloadOf(out[0] as QueuedEnvelope)])).toBe(textOf(updates))
    expect(out.slice(1)).toEqual([health, garbage, newAsk])
  })

  it('keeps a backlog without updates as it is (no merged envelope made)', () => {
    const { envelope } = recorder()
    const ask = envelope('sync-request', new Uint8Array([0]))
    const health = envelope('health', new Uint8Array([9]))
    const m = merging(1 << 20)
    expect(mergeBacklog([health, ask], m.options)).toEqual([health, ask])
    expect(mergeBacklog([], m.options)).toEqual([])
    expect(m.wrapped).toEqual([])
    expect(m.merged).toEqual([])
  })

  it('starts another merged envelope where the payload bound would be passed, and sends a lone update as it was', () => {
    const { envelope } = recorder()
    const updates = typing(5)
    const sizes = updates.map((u) => u.byteLength)
    // The bound holds the first three updates exactly, so the fourth starts a new group.
    const bound = (sizes[0] ?? 0) + (sizes[1] ?? 0) + (sizes[2] ?? 0)
    const waiting = updates.map((u) => envelope('update', u))
    const m = merging(bound)
    const out = mergeBacklog(waiting, m.options)
    expect(out).toHaveLength(2)
    expect(m.merged).toEqual([3, 2])
    expect(textOf(out.map(payloadOf))).toBe(textOf(updates))
    expect(textOf([payloadOf(out[0] as QueuedEnvelope)])).toBe(textOf(updates.slice(0, 3)))

    // A group of one is the envelope itself: same id, same owner, no wrap.
    const lone = mergeBacklog([waiting[0] as QueuedEnvelope], merging(bound).options)
    expect(lone).toEqual([waiting[0]])
    const split = merging((sizes[0] ?? 0) + (sizes[1] ?? 0) - 1)
    const apart = mergeBacklog(waiting.slice(0, 2), split.options)
    expect(apart).toEqual(waiting.slice(0, 2))
    expect(split.wrapped).toEqual([])
    expect(apart.map(kindOf)).toEqual(['update', 'update'])
  })
})

describe('mergeBacklog: the edges', () => {
  it('merges without an onMerged listener', () => {
    const { heard, envelope } = recorder()
    const updates = typing(3)
    const waiting = updates.map((u) => envelope('update', u))
    const { onMerged: _unused, ...options } = merging(1 << 20).options
    const out = mergeBacklog(waiting, options)
    expect(out).toHaveLength(1)
    out[0]?.owner.ack(out[0].messageId)
    expect(heard).toHaveLength(3)
  })

  it('merges an update larger than the decoder default (16 MiB), as a frame bound up to 64 MiB allows', () => {
    const { envelope } = recorder()
    const doc = new Y.Doc()
    const updates: Uint8Array[] = []
    doc.on('update', (u: Uint8Array) => updates.push(u))
    doc.getText('t').insert(0, 'x'.repeat(17 * 1024 * 1024))
    doc.getText('t').insert(0, 'small ')
    const waiting = updates.map((u) => envelope('update', u))
    const m = merging(64 * 1024 * 1024)
    const out = mergeBacklog(waiting, m.options)
    expect(m.merged).toEqual([2])
    expect(out).toHaveLength(1)
  })
})

describe('mergeBacklog: the kind of a merged envelope', () => {
  it("stays an update when it merged updates alone (this account's own writing)", () => {
    const { envelope } = recorder()
    const m = merging(1 << 20)
    mergeBacklog(
      typing(5).map((u) => envelope('update', u)),
      m.options,
    )
    expect(m.kinds).toEqual(['update'])
  })
})
