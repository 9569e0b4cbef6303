/**
 * Test helpers (imported by tests only): replicas under account-derived client ids and a seeded
 * id source.
 */
import { clientIdFor } from '@e2e-col/protocol'
import * as Y from 'yjs'

export const ALICE_TAG = 1100
export const BOB_TAG = 2200
export const CAROL_TAG = 3300

/** A document written under `tag`'s account (`page` tells two pages of one account apart). */
export function docOf(tag: number, page = 1): Y.Doc {
  const doc = new Y.Doc()
  doc.clientID = clientIdFor(tag, page)
  return doc
}

/** Brings `b` to `a`'s state and back. */
export function syncDocs(a: Y.Doc, b: Y.Doc): void {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)))
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)))
}

/** A deterministic uint32 source. */
export function counter(seed = 1): () => number {
  let n = seed
  return () => {
    n = (Math.imul(n, 1103515245) + 12345) >>> 0
    return n
  }
}

/** What `doc` wrote since `before` (a state vector): the update a page would send. */
export const since = (doc: Y.Doc, before: Uint8Array): Uint8Array => Y.encodeStateAsUpdate(doc, before)
