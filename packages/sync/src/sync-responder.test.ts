import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { manualTimers, seededRandom } from './manual-timers.ts'
import { SyncResponder } from './sync-responder.ts'

function peer(timers: ReturnType<typeof manualTimers>, random: () => number, maxPending = 8) {
  const doc = new Y.Doc()
  const sent: Uint8Array[] = []
  const asks: Uint8Array[] = []
  const responder = new SyncResponder(
    doc,
    { minDelayMs: 10, maxDelayMs: 200, maxPending, random, timers },
    (payload) => sent.push(payload),
    () => asks.push(Y.encodeStateVector(doc)),
  )
  return { doc, sent, asks, responder }
}

describe('SyncResponder', () => {
  test('answers with only what the asker lacks', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.5)
    const asker = new Y.Doc()
    a.doc.getText('t').insert(0, 'shared base ')
    Y.applyUpdate(asker, Y.encodeStateAsUpdate(a.doc))
    a.doc.getText('t').insert(12, 'and more')
    a.responder.onRequest(Y.encodeStateVector(asker))
    expect(a.sent).toHaveLength(0) // waits its random delay first
    timers.advance(200)
    expect(a.sent).toHaveLength(1)
    const answer = a.sent[0] as Uint8Array
    expect(answer.byteLength).toBeLessThan(Y.encodeStateAsUpdate(a.doc).byteLength)
    Y.applyUpdate(asker, answer)
    expect(asker.getText('t').toString()).toBe('shared base and more')
  })

  test('a group of N peers with the same state sends one answer, not N', () => {
    const timers = manualTimers()
    const random = seededRandom(7)
    const base = new Y.Doc()
    base.getText('t').insert(0, 'everyone has this')
    const peers = Array.from({ length: 6 }, () => peer(timers, random))
    for (const p of peers) Y.applyUpdate(p.doc, Y.encodeStateAsUpdate(base))
    const sv = Y.encodeStateVector(new Y.Doc())
    for (const p of peers) p.responder.onRequest(sv)
    // Deliver every answer to every other peer the moment it is sent (the group sees it).
    const seen = peers.map(() => 0)
    for (let t = 0; t < 250; t++) {
      timers.advance(1)
      peers.forEach((p, i) => {
        for (const answer of p.sent.slice(seen[i])) {
          for (const other of peers) if (other !== p) other.responder.onPeerResponse(answer)
        }
        seen[i] = p.sent.length
      })
    }
    expect(peers.reduce((n, p) => n + p.sent.length, 0)).toBe(1)
    expect(peers.reduce((n, p) => n + p.responder.stats.suppressed, 0)).toBe(5)
  })

  test('still answers when the answer it saw does not cover what it has', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.9)
    const b = new Y.Doc()
    b.getText('t').insert(0, 'from b')
    Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(b))
    a.doc.getText('t').insert(0, 'only a has this; ')
    a.responder.onRequest(Y.encodeStateVector(new Y.Doc()))
    a.responder.onPeerResponse(Y.encodeStateAsUpdate(b)) // b answered with its own (smaller) state
    timers.advance(200)
    expect(a.sent).toHaveLength(1)
    expect(a.responder.stats.suppressed).toBe(0)
    // The answer skips what b already sent: the asker rebuilds the full text from both.
    const asker = new Y.Doc()
    Y.applyUpdate(asker, Y.encodeStateAsUpdate(b))
    Y.applyUpdate(asker, a.sent[0] as Uint8Array)
    expect(asker.getText('t').toString()).toBe(a.doc.getText('t').toString())
  })

  test('answers even with nothing new when no peer answered (deletions are invisible to state vectors)', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0)
    a.doc.getText('t').insert(0, 'abc')
    const asker = new Y.Doc()
    Y.applyUpdate(asker, Y.encodeStateAsUpdate(a.doc))
    a.doc.getText('t').delete(0, 1) // no clock advances
    a.responder.onRequest(Y.encodeStateVector(asker))
    timers.advance(200)
    expect(a.sent).toHaveLength(1)
    Y.applyUpdate(asker, a.sent[0] as Uint8Array)
    expect(asker.getText('t').toString()).toBe('bc')
  })

  test('bounds waiting requests: beyond maxPending the oldest is dropped', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.5, 2)
    const sv = Y.encodeStateVector(new Y.Doc())
    a.responder.onRequest(sv)
    a.responder.onRequest(sv)
    a.responder.onRequest(sv)
    expect(a.responder.stats.dropped).toBe(1)
    expect(timers.pending()).toBe(2)
    a.responder.dispose()
    expect(timers.pending()).toBe(0)
  })

  test('rejects a malformed state vector with a thrown error and schedules nothing', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.5)
    expect(() => a.responder.onRequest(new Uint8Array([0xff, 0xff, 0xff]))).toThrow()
    expect(timers.pending()).toBe(0)
  })

  test('asks back when the asker holds something we lack, unless an answer fills the gap first', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.5)
    const asker = new Y.Doc()
    asker.getText('t').insert(0, 'only the asker has this')
    a.responder.onRequest(Y.encodeStateVector(asker))
    timers.advance(200)
    expect(a.asks).toHaveLength(1)
    expect(a.responder.stats.askedBack).toBe(1)

    const b = peer(timers, () => 0.5)
    b.responder.onRequest(Y.encodeStateVector(asker))
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(asker)) // another peer's answer arrived meanwhile
    timers.advance(200)
    expect(b.asks).toHaveLength(0)
  })

  test('does not ask back when the asker holds nothing new', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.5)
    a.doc.getText('t').insert(0, 'x')
    a.responder.onRequest(Y.encodeStateVector(new Y.Doc()))
    timers.advance(200)
    expect(a.asks).toHaveLength(0)
  })

  test('owes the asker only what it held when the request came: an edit arriving later does not make it answer', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.9)
    a.doc.getText('t').insert(0, 'held when asked')
    a.responder.onRequest(Y.encodeStateVector(new Y.Doc()))
    a.responder.onPeerResponse(Y.encodeStateAsUpdate(a.doc)) // another peer answered all of it
    const editor = new Y.Doc()
    Y.applyUpdate(editor, Y.encodeStateAsUpdate(a.doc))
    editor.getText('t').insert(0, 'a later edit, sent to everyone; ')
    Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(editor, Y.encodeStateVector(a.doc)))
    timers.advance(200)
    expect(a.sent).toHaveLength(0)
    expect(a.responder.stats.suppressed).toBe(1)
  })

  test('still answers with what waited for a missing piece when the request came and joined the document since', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.9)
    const author = new Y.Doc()
    author.getText('t').insert(0, 'first ')
    const first = Y.encodeStateAsUpdate(author)
    author.getText('t').insert(6, 'second')
    const secondOnly = Y.diffUpdate(Y.encodeStateAsUpdate(author), Y.encodeStateVectorFromUpdate(first))
    // The second part came first and waits for the first one in Yjs.
    Y.applyUpdate(a.doc, secondOnly)
    expect(a.doc.store.pendingStructs).not.toBeNull()
    a.responder.onRequest(Y.encodeStateVector(new Y.Doc()))
    a.responder.onPeerResponse(first) // another peer answered with the first part only
    Y.applyUpdate(a.doc, first) // the first part arrives: the second joins the document
    expect(a.doc.getText('t').toString()).toBe('first second')
    timers.advance(200)
    expect(a.sent).toHaveLength(1)
    const asker = new Y.Doc()
    Y.applyUpdate(asker, first)
    Y.applyUpdate(asker, a.sent[0] as Uint8Array)
    expect(asker.getText('t').toString()).toBe('first second')
  })

  test('still answers when the answer it saw lacks one of its deletions', () => {
    const timers = manualTimers()
    const a = peer(timers, () => 0.9)
    a.doc.getText('t').insert(0, 'abc')
    const b = new Y.Doc()
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a.doc))
    const asker = new Y.Doc()
    Y.applyUpdate(asker, Y.encodeStateAsUpdate(a.doc))
    a.doc.getText('t').delete(1, 1) // same state vector everywhere, but only a knows this deletion
    a.responder.onRequest(Y.encodeStateVector(asker))
    a.responder.onPeerResponse(Y.encodeStateAsUpdate(b, Y.encodeStateVector(asker))) // b answered first
    timers.advance(200)
    expect(a.sent).toHaveLength(1)
    Y.applyUpdate(asker, a.sent[0] as Uint8Array)
    expect(asker.getText('t').toString()).toBe('ac')
  })
})
