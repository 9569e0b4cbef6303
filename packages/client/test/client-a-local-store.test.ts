/**
 * What a binding keeps in, and never writes to, its local store: the default IndexedDB databases
 * (one set per sidecar host), write failures, the seq mark of a session that sent nothing durable,
 * a store it cannot read (and the page-hide rescue it then leaves alone), and nothing after close.
 */
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { createMemoryStorage, type ClientStorage } from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'
import { connected, recordingStorage, scriptedBindings, settle, textUpdate } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

/** A memory store whose senderId cannot be read (private mode), with `rescued` in its page-hide slot. */
function unreadable(rescued?: Uint8Array): { storage: ClientStorage; failure: Error } {
  const memory = createMemoryStorage()
  if (rescued !== undefined) memory.rescue?.save(rescued)
  const failure = new Error('private mode')
  return { storage: { ...memory, senderId: () => Promise.reject(failure) }, failure }
}

describe('the default store', () => {
  test('is IndexedDB named after the sidecar host: each sidecar keeps its own copy of a document', async () => {
    const hostA = `a-${process.pid}.test:7001`
    const hostB = `b-${process.pid}.test:7001`
    const first = open({ storage: undefined, sidecarUrl: `ws://${hostA}` })
    await first.conn.ready
    first.text.insert(0, 'kept for sidecar A')
    await first.conn.close()

    const other = open({ storage: undefined, sidecarUrl: `ws://${hostB}` })
    await other.conn.ready
    expect(other.text.toString()).toBe('')
    const again = open({ storage: undefined, sidecarUrl: `ws://${hostA}` })
    await again.conn.ready
    expect(again.text.toString()).toBe('kept for sidecar A')
    // Renaming these would strand every page's stored edits on upgrade.
    const names = (await indexedDB.databases()).map((d) => d.name)
    expect(names).toEqual(expect.arrayContaining([`e2e-col@${hostA}:doc:${DOC_ID}`, `e2e-col@${hostA}`]))
  })
})

describe('writing the store', () => {
  test('a failed write is reported as CLIENT_STORAGE_FAILED with its cause; the edit still counts as pending', async () => {
    const memory = createMemoryStorage()
    const failure = new Error('quota exceeded')
    let commits = 0
    const storage: ClientStorage = {
      ...memory,
      commit: (change) => (++commits === 1 ? memory.commit(change) : Promise.reject(failure)),
    }
    const b = open({ storage })
    await b.conn.ready
    b.text.insert(0, 'x')
    await b.conn.flush()
    expect(b.errors).toHaveLength(1)
    expect(b.errors[0]).toMatchObject({ code: 'CLIENT_STORAGE_FAILED', message: 'could not write to local storage' })
    expect(b.errors[0]?.cause).toBe(failure)
    expect(b.conn.status().pending).toBe(1)
  })

  test('a session that only sent sync requests still moves the seq mark: the next one never reuses its seqs', async () => {
    const storage = createMemoryStorage()
    const first = await connected(open, { storage })
    const [firstRequest] = first.sent('sync-request')
    await first.conn.close()
    const second = await connected(open, { storage })
    const [secondRequest] = second.sent('sync-request')
    expect(firstRequest?.kind).toBe('sync-request')
    expect(secondRequest?.seq).toBeGreaterThan(firstRequest?.seq ?? Infinity)
  })

  test('close() a second time writes nothing more', async () => {
    const b = open()
    await b.conn.ready
    b.text.insert(0, 'x')
    await b.conn.close()
    const written = b.storage.commits.length
    // The last write is the closing checkpoint, holding the edit.
    const closing = new Y.Doc()
    Y.applyUpdate(closing, b.storage.commits.at(-1)?.checkpoint ?? new Uint8Array([0, 0]))
    expect(closing.getText('t').toString()).toBe('x')
    await b.conn.close()
    expect(b.storage.commits).toHaveLength(written)
  })

  test('edits after close() are neither stored nor counted', async () => {
    const b = open()
    await b.conn.ready
    await b.conn.close()
    const written = b.storage.commits.length
    const statuses = b.statuses.length
    b.text.insert(0, 'after close')
    b.timers.advance(10_000)
    await settle()
    expect(b.storage.commits).toHaveLength(written)
    expect(b.statuses).toHaveLength(statuses)
    expect(b.conn.status().pending).toBe(0)
  })

  test('close() before the load finished opens no socket', async () => {
    const b = open()
    await b.conn.close()
    await b.conn.ready
    await settle()
    expect(b.sockets).toHaveLength(0)
  })
})

describe('a store that cannot be read, and the page-hide rescue', () => {
  test('the failure is reported with the store’s own error as its cause', async () => {
    const { storage, failure } = unreadable()
    const b = open({ storage })
    await b.conn.ready
    expect(b.errors.map((e) => [e.code, e.cause])).toEqual([['CLIENT_STORAGE_FAILED', failure]])
  })

  test('an unreadable store leaves the rescued edits in their slot for a load that can store them', async () => {
    const rescued = textUpdate('rescued before the last unload')
    const { storage } = unreadable(rescued)
    const b = open({ storage })
    await b.conn.ready
    await b.conn.flush()
    expect(b.text.toString()).toBe('')
    expect(storage.rescue?.peek()).toEqual(rescued)
  })

  test('an unreadable rescue is reported with its cause', async () => {
    const storage = createMemoryStorage()
    storage.rescue?.save(new Uint8Array([1, 2, 3]))
    const b = open({ storage })
    await b.conn.ready
    await b.conn.flush()
    expect(b.errors).toHaveLength(1)
    expect(b.errors[0]?.message).toBe('the page-hide rescue state was unreadable')
    expect(b.errors[0]?.cause).toBeInstanceOf(Error)
  })

  test('an empty rescue slot, or none at all, loads without a word', async () => {
    const withSlot = open({ storage: createMemoryStorage() })
    const { rescue: _none, ...noSlot } = createMemoryStorage()
    const withoutSlot = open({ storage: recordingStorage(noSlot) })
    await Promise.all([withSlot.conn.ready, withoutSlot.conn.ready])
    await Promise.all([withSlot.conn.flush(), withoutSlot.conn.flush()])
    expect([...withSlot.errors, ...withoutSlot.errors]).toEqual([])
  })
})
