/**
 * A burst of edits beyond the coalescer's merge limit: the binding stops listening to Yjs's `update`
 * event (so Yjs does not encode each transaction), sends the window as a state-vector diff, and
 * keeps every change, deletions included, in the durable outbox and at the peer.
 */
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { createIndexedDbStorage } from '../src/index.ts'
import { client, closingAfterEach, DOC_ID, freshPrefix, textsBecome } from './client-harness.ts'

const { relay, track } = closingAfterEach()

/**
 * Counts the `update` events Yjs emits on `doc`: it emits one exactly when it has encoded a
 * transaction's update (which it does only while someone listens).
 */
function countEncodedUpdates(doc: Y.Doc): () => number {
  let count = 0
  const emit = doc.emit.bind(doc)
  doc.emit = (name, args) => {
    if (name === 'update') count += 1
    emit(name, args)
  }
  return () => count
}

/** Types `n` one-character transactions with a deletion every seventh, as the replay bench does. */
function burst(doc: Y.Doc, n: number): void {
  const text = doc.getText('t')
  for (let i = 0; i < n; i++) {
    doc.transact(() => {
      if (i % 7 === 6) text.delete(Math.floor(text.length / 2), 1)
      else text.insert(text.length, String.fromCharCode(97 + (i % 26)))
    })
  }
}

describe('a burst beyond the merge limit', () => {
  test('is not encoded per transaction, yet reaches the peer whole, deletions included', async () => {
    const r = await relay()
    const a = track(client(r.url, freshPrefix(), { mergeLimit: 8, flushWindowMs: 60_000 }))
    const b = track(client(r.url, freshPrefix()))
    await Promise.all([a.conn.ready, b.conn.ready])
    const encoded = countEncodedUpdates(a.doc)
    a.text.insert(0, 'start ') // the first edit after a quiet period leaves at once
    expect(encoded()).toBe(1)
    burst(a.doc, 40)
    expect(a.conn.status().pending).toBe(1 + 40) // 'start ' (not acked yet) and every change, encoded or not
    expect(encoded()).toBe(1 + 8) // only up to the merge limit
    const expected = a.text.toString()
    const frame = r.nextEnvelope((e) => e.kind === 'update' && e.senderId === a.conn.senderId)
    await a.conn.flush()
    await frame
    a.text.insert(0, '>') // the next window records updates again
    expect(encoded()).toBe(1 + 8 + 1)
    const expectedAfter = a.text.toString()
    await textsBecome([b.doc], () => expected)
    await a.conn.flush()
    await textsBecome([b.doc], () => expectedAfter)
    expect(Y.encodeStateVector(b.doc)).toEqual(Y.encodeStateVector(a.doc))
    expect(
      Y.equalDeleteSets(Y.createDeleteSetFromStructStore(b.doc.store), Y.createDeleteSetFromStructStore(a.doc.store)),
    ).toBe(true)
  })

  test('is written to the durable outbox before it leaves, and survives a reload', async () => {
    const r = await relay()
    r.hold = true // nothing is acknowledged
    const prefix = freshPrefix()
    const a = client(r.url, prefix, { mergeLimit: 8, flushWindowMs: 60_000, checkpointDelayMs: 60_000 })
    await a.conn.ready
    a.text.insert(0, 'start ')
    burst(a.doc, 40)
    const expected = a.text.toString()
    await a.conn.flush()
    // Close without its checkpoint: only the outbox may carry the burst.
    const stored = await createIndexedDbStorage(DOC_ID, { prefix }).load()
    await a.conn.close()
    const fromOutbox = new Y.Doc()
    for (const entry of stored.outbox) Y.applyUpdate(fromOutbox, entry.payload)
    expect(fromOutbox.getText('t').toString()).toBe(expected)
    expect(stored.checkpoint).toBeUndefined()

    r.hold = false
    const again = track(client(r.url, prefix))
    await again.conn.ready
    expect(again.text.toString()).toBe(expected)
  })

  test('remote updates are never sent back, whatever the listening state', async () => {
    const r = await relay()
    const a = track(client(r.url, freshPrefix(), { mergeLimit: 8, flushWindowMs: 60_000 }))
    const b = track(client(r.url, freshPrefix(), { mergeLimit: 8, flushWindowMs: 60_000 }))
    await Promise.all([a.conn.ready, b.conn.ready])
    a.text.insert(0, 'x')
    burst(a.doc, 20)
    await a.conn.flush()
    await textsBecome([b.doc], () => a.text.toString())
    expect(b.conn.status().pending).toBe(0)
    expect(r.received.filter((e) => e.kind === 'update' && e.senderId === b.conn.senderId)).toEqual([])
  })
})
