import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { Coalescer, type FlushEncoding } from './coalescer.ts'
import { trackLocalChanges } from './local-changes.ts'

const REMOTE = Symbol('remote')
const LOAD = Symbol('load')

/**
 * A real coalescer wired as the client wires it (every flush re-syncs the tracker), whose flushes
 * reach `peer`; `hooks.afterLocalChange` runs after each local change (a status listener may flush).
 */
function wired(mergeLimit: number) {
  const doc = new Y.Doc()
  const peer = new Y.Doc()
  const timers = manualTimers()
  const encodings: FlushEncoding[] = []
  const authors = new Set<number>()
  const hooks = { afterLocalChange: (): void => {} }
  const onFlush = (payload: Uint8Array, encoding: FlushEncoding): void => {
    encodings.push(encoding)
    for (const s of Y.decodeUpdate(payload).structs) authors.add(s.id.client)
    Y.applyUpdate(peer, payload)
    changes.sync()
  }
  const coalescer = new Coalescer(doc, { flushWindowMs: 100, mergeLimit, timers }, onFlush)
  const changes = trackLocalChanges({
    doc,
    coalescer,
    remoteOrigin: REMOTE,
    loadOrigin: LOAD,
    active: () => true,
    onLocalChange: () => hooks.afterLocalChange(),
    onAnyChange: () => {},
  })
  return { doc, peer, text: doc.getText('t'), timers, encodings, authors, coalescer, hooks }
}

describe('trackLocalChanges: a change counted unencoded', () => {
  test('is not handed over again when a flush during its transaction turns encoded updates back on', () => {
    const { doc, peer, text, timers, encodings, coalescer, hooks } = wired(1)
    text.insert(0, 'a') // sent at once
    text.insert(1, 'b') // fills the window's merge limit: encoded updates are no longer wanted
    hooks.afterLocalChange = () => coalescer.flush() // e.g. a status listener that flushes
    text.insert(2, 'c') // counted unencoded; the flush it triggers wants encoded updates again
    timers.advance(1000)
    expect(encodings).toEqual(['single', 'diff'])
    expect(coalescer.pendingCount).toBe(0)
    expect(peer.getText('t').toString()).toBe(text.toString())
    expect(Y.encodeStateVector(peer)).toEqual(Y.encodeStateVector(doc))
  })
})

describe('trackLocalChanges: remote changes past the merge limit', () => {
  test('are never counted as local changes, so this page does not send them', () => {
    const { doc, text, timers, encodings, authors } = wired(1)
    text.insert(0, 'a') // sent at once
    text.insert(1, 'b') // fills the window's merge limit
    const remote = new Y.Doc()
    remote.getText('t').insert(0, 'from a peer')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(remote), REMOTE)
    timers.advance(100)
    expect(encodings).toEqual(['single', 'single'])
    expect(authors).toEqual(new Set([doc.clientID]))
  })
})
