import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import type { Coalescer } from './coalescer.ts'
import { hasChanges, trackLocalChanges } from './local-changes.ts'

const REMOTE = Symbol('remote')
const LOAD = Symbol('load')

/** A coalescer stand-in that wants encoded updates while `wants` is true, recording what it is handed. */
function fakeCoalescer(): { coalescer: Coalescer; log: string[]; state: { wants: boolean } } {
  const log: string[] = []
  const state = { wants: true }
  const coalescer = {
    push: () => log.push('push'),
    pushUnencoded: () => log.push('unencoded'),
    get wantsUpdates() {
      return state.wants
    },
  } as unknown as Coalescer
  return { coalescer, log, state }
}

function track(active = (): boolean => true) {
  const doc = new Y.Doc()
  const { coalescer, log, state } = fakeCoalescer()
  const changes = trackLocalChanges({
    doc,
    coalescer,
    remoteOrigin: REMOTE,
    loadOrigin: LOAD,
    active,
    onLocalChange: () => log.push('local'),
    onAnyChange: () => log.push('any'),
  })
  return { doc, log, state, changes, text: doc.getText('t') }
}

describe('hasChanges', () => {
  test('a transaction that inserts or deletes has changes; an empty one has none', () => {
    const doc = new Y.Doc()
    const seen: boolean[] = []
    doc.on('afterTransaction', (tr: Y.Transaction) => seen.push(hasChanges(tr)))
    doc.transact(() => {})
    doc.getText('t').insert(0, 'ab')
    doc.getText('t').delete(0, 1)
    expect(seen).toEqual([false, true, true])
  })
})

describe('trackLocalChanges', () => {
  test('hands local updates to the coalescer encoded; remote and loaded ones are not local', () => {
    const { doc, log, text } = track()
    text.insert(0, 'a')
    expect(log).toEqual(['any', 'push', 'local'])
    log.length = 0
    const remote = new Y.Doc()
    remote.getText('t').insert(0, 'r')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(remote), REMOTE)
    expect(log).toEqual(['any'])
    log.length = 0
    const loaded = new Y.Doc()
    loaded.getText('t').insert(0, 'l')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(loaded), LOAD)
    doc.transact(() => {}) // no change at all
    expect(log).toEqual([])
  })

  test('once the coalescer wants no encoded updates, local changes are counted unencoded, once each', () => {
    const { log, state, changes, text } = track()
    state.wants = false
    changes.sync()
    text.insert(0, 'a')
    text.insert(1, 'b')
    expect(log).toEqual(['unencoded', 'local', 'any', 'unencoded', 'local', 'any'])
    log.length = 0
    state.wants = true
    changes.sync()
    text.insert(2, 'c')
    expect(log).toEqual(['any', 'push', 'local'])
  })

  test('an inactive binding stops asking for encoded updates after its next change', () => {
    let active = true
    const { log, text } = track(() => active)
    active = false
    text.insert(0, 'a') // seen encoded: the listener was on; then sync() drops it
    text.insert(1, 'b')
    expect(log).toEqual(['any', 'push', 'local', 'unencoded', 'local', 'any'])
  })

  test('detach stops everything', () => {
    const { log, changes, text } = track()
    changes.detach()
    text.insert(0, 'a')
    expect(log).toEqual([])
  })
})
