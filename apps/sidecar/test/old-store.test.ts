/**
 * A store written before each feature kept its own tables opens after the change with every
 * feature's data as it was. `fixtures/old-store.sqlite3` was written by the sidecar as it stood
 * before (commit aa1e5ee: one schema string in replica/store.ts for every table), and
 * `fixtures/old-store.json` is what that code read back from it, table by table; the code of
 * today must read the same.
 */
import { copyFileSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openSidecarStore, type SidecarStore } from '../src/phases/store.ts'
import { tempStoreDir } from '../src/replica/store-fixture.ts'
import { STORE_FILE } from '../src/replica/store.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const DOC = '1e63a9c7-2564-8a0a-bf3a-91899b092bfb'
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

const hex = (_key: string, value: unknown): unknown =>
  value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value

/** Every feature's data, as the old code read it (the same calls, the same order). */
function readAll(store: SidecarStore): unknown {
  const read = {
    updates: store.loadUpdates(DOC),
    logSize: store.logSize(DOC),
    sentIds: {
      has: store.sentIds.has(DOC, 'm-2'),
      sender: store.sentIds.senderOf(DOC, 'm-1'),
      count: store.sentIds.count(DOC),
    },
    documents: store.documents.list(),
    outbox: store.outbox.list(DOC),
    inviter: store.inviters.get(GROUP),
    joined: store.joined.list(DOC),
    fixedChange: store.fixedChanges.get('fixed-doc'),
    receivedIds: store.receivedIds.recent(0, 10),
    promotions: store.promotions.list(),
    authors: store.authors.rowsOf(DOC).load(),
    history: {
      pending: store.history.pending(DOC),
      changes: store.history.changesAfter(DOC, 0),
      versions: store.history.versions(DOC, undefined, 10),
      stored: store.history.stored(DOC, 1),
    },
  }
  return JSON.parse(JSON.stringify(read, hex)) as unknown
}

describe('a store from before the features kept their own tables', () => {
  const expected = JSON.parse(readFileSync(join(HERE, 'fixtures/old-store.json'), 'utf8')) as unknown

  it('opens writable with every feature reading its rows as before, and again after', () => {
    const dir = tempStoreDir('old-store')
    copyFileSync(join(HERE, 'fixtures/old-store.sqlite3'), join(dir, STORE_FILE))
    const store = openSidecarStore(dir)
    try {
      expect(readAll(store)).toEqual(expected)
    } finally {
      store.close()
    }
    const again = openSidecarStore(dir)
    try {
      expect(readAll(again)).toEqual(expected)
    } finally {
      again.close()
    }
  })

  it('opens read-only (as inspect does) with the same rows, changing nothing', () => {
    const dir = tempStoreDir('old-store-ro')
    copyFileSync(join(HERE, 'fixtures/old-store.sqlite3'), join(dir, STORE_FILE))
    const before = readFileSync(join(dir, STORE_FILE))
    const store = openSidecarStore(dir, { readonly: true })
    try {
      expect(readAll(store)).toEqual(expected)
    } finally {
      store.close()
    }
    expect(readFileSync(join(dir, STORE_FILE)).equals(before)).toBe(true)
  })
  it('gains the removals table it predates on a writable open, and keeps a removal across a reopen', () => {
    const dir = tempStoreDir('old-store-removals')
    copyFileSync(join(HERE, 'fixtures/old-store.sqlite3'), join(dir, STORE_FILE))
    const readOnly = openSidecarStore(dir, { readonly: true })
    try {
      expect(readOnly.removals.get(DOC)).toBeUndefined()
      expect(() => readOnly.removals.note(DOC, '+15550000002', false, 1)).toThrow(/read-only/)
    } finally {
      readOnly.close()
    }
    const store = openSidecarStore(dir)
    try {
      expect(store.removals.get(DOC)).toBeUndefined()
      store.removals.note(DOC, '+15550000002', true, 1)
    } finally {
      store.close()
    }
    const again = openSidecarStore(dir)
    try {
      expect(again.removals.get(DOC)).toEqual({ by: '+15550000002', deleted: true })
      expect(readAll(again)).toEqual(expected)
    } finally {
      again.close()
    }
  })
})
