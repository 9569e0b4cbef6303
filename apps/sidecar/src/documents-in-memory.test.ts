import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { systemClock } from './clock.ts'
import type { Document, DocumentCarry } from './document/document.ts'
import { createDocumentsInMemory, type MemoryPorts } from './documents-in-memory.ts'
import { createRoster } from './group/roster.ts'
import { createSyncBounds } from './document/replica-sync.ts'
import { createEntryRate } from './review/entry-rate.ts'
import { createLogger } from './ops/logger.ts'
import { createMetrics } from './ops/metrics.ts'
import { openReplicaStore, type ReplicaStore } from './replica/store.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A document that counts what the collection asks of it. */
function countingDocument(docId: string, calls: string[], carry?: DocumentCarry): Document {
  const count = (name: string) => () => void calls.push(`${docId}:${name}`)
  return {
    docId,
    groupId: `g-${docId}`,
    carry: carry ?? { roster: createRoster({}), reviewRate: createEntryRate(), sync: createSyncBounds() },
    pages: { count: 0 } as Document['pages'],
    group: {
      greet: count('greet'),
      ask: count('ask'),
      busy: () => false,
      roster: createRoster({}),
      syncStats: () => ({ answered: 0, suppressed: 0, askedBack: 0 }),
    } as unknown as Document['group'],
    roles: {} as Document['roles'],
    outbox: { queuedBytes: 0, resumeKept: count('resume') } as unknown as Document['outbox'],
    content: {} as Document['content'],
    close: count('close'),
  }
}

function setup(maxLoaded: number, clock = systemClock): { store: ReplicaStore; ports: MemoryPorts } {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-memory-'))
  dirs.push(dir)
  const store = openReplicaStore(dir)
  const ports: MemoryPorts = {
    config: { replica: { evictAfterMs: 0, maxLoaded, syncOnStart: true } },
    clock,
    reach: { onChange: () => () => {} },
    store,
    storing: (fn) => fn(),
    stopped: () => false,
    metrics: createMetrics(),
    logger: createLogger('silent'),
  }
  return { store, ports }
}

describe('documents in memory at start', () => {
  it('queues what a previous run kept once, and greets and asks once, whatever the bound loads', () => {
    const { store, ports } = setup(2)
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'kept')
    for (const id of ['a', 'b', 'c']) store.appendUpdate(id, Y.encodeStateAsUpdate(doc))
    // 'c' holds a change Signal never took: it loads even beyond the bound.
    store.outbox.accept('c', 'page', 'm1', new Uint8Array([1]), 0)
    const calls: string[] = []
    const memory = createDocumentsInMemory(ports, (docId) => countingDocument(docId, calls))
    memory.start(new Map(['a', 'b', 'c'].map((id) => [id, `g-${id}`])))
    expect([...memory.docs.keys()].sort()).toEqual(['a', 'c'])
    expect(calls.filter((c) => c.endsWith(':resume')).sort()).toEqual(['a:resume', 'c:resume'])
    expect(calls.filter((c) => c.endsWith(':greet')).sort()).toEqual(['a:greet', 'c:greet'])
    expect(calls.filter((c) => c.endsWith(':ask')).sort()).toEqual(['a:ask', 'c:ask'])
    // Loaded later: its first load resumes, greets and asks, each once.
    memory.load('b', 'g-b')
    memory.forget('b', 1000, 'test')
    expect(calls.filter((c) => c.startsWith('b:'))).toEqual(['b:resume', 'b:greet', 'b:ask', 'b:close'])
    // One made while the sidecar runs: the library asks its group itself; its loads greet nobody.
    memory.load('d', 'g-d')
    expect(calls.filter((c) => c.startsWith('d:'))).toEqual(['d:resume'])
    memory.close(1001, 'done')
    store.close()
  })
})

describe('documents in memory across stays', () => {
  it('gives a document that left memory what its last stay left (announcements, review rates), and a forgotten one nothing', () => {
    let now = 0
    const { store, ports } = setup(1, { ...systemClock, now: () => now })
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'kept')
    for (const id of ['a', 'b']) store.appendUpdate(id, Y.encodeStateAsUpdate(doc))
    const given: (DocumentCarry | undefined)[] = []
    const memory = createDocumentsInMemory(ports, (docId, _groupId, _replica, carry) => {
      if (docId === 'a') given.push(carry)
      return countingDocument(docId, [], carry)
    })
    const first = memory.load('a', 'g-a')?.carry
    // A member spends their whole burst of review entries in 'a'.
    expect(first?.reviewRate.take('+1555', 120, now)).toBe(true)
    now += 5000
    // 'b' needs the one place: the quiet 'a' leaves, then comes back for the next use.
    memory.load('b', 'g-b')
    expect([...memory.docs.keys()]).toEqual(['b'])
    now += 5000
    const again = memory.load('a', 'g-a')?.carry
    expect(given).toEqual([undefined, first])
    expect(again).toBe(first)
    // The bucket did not refill by leaving memory: 10 s regained 10 entries, not 120.
    expect(again?.reviewRate.take('+1555', 11, now)).toBe(false)
    expect(again?.reviewRate.take('+1555', 10, now)).toBe(true)
    // No longer served: what it left goes with it.
    memory.forget('a', 1000, 'test')
    memory.load('a', 'g-a')
    expect(given.at(-1)).toBeUndefined()
    memory.close(1001, 'done')
    store.close()
  })
})
