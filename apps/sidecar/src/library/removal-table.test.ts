import Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { MAX_REMOVALS } from './removal-table.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'
import { openSidecarStore } from '../phases/store.ts'
import { STORE_FILE } from '../replica/store.ts'

const tempDir = (): string => tempStoreDir('removals')
const BOB = '+15555550102'

describe('the removal table', () => {
  it('keeps who removed and "deleted" across a reopen; a later look completes, never erases; forget drops it', () => {
    const dir = tempDir()
    const store = openSidecarStore(dir)
    store.removals.note('d1', undefined, true, 1)
    store.removals.note('d1', BOB, false, 2)
    store.removals.note('d1', undefined, false, 3)
    store.close()
    const again = openSidecarStore(dir)
    expect(again.removals.get('d1')).toEqual({ by: BOB, deleted: true })
    again.removals.forget('d1')
    expect(again.removals.get('d1')).toBeUndefined()
    again.close()
    const readOnly = openSidecarStore(dir, { readonly: true })
    expect(() => readOnly.removals.note('d2', BOB, false, 4)).toThrow(/read-only/)
    readOnly.close()
  })

  it('an older store without the table opens fine: read-only it knows no removals, writable it gains the table', () => {
    const dir = tempDir()
    openSidecarStore(dir).close()
    const db = new Database(join(dir, STORE_FILE))
    db.exec('DROP TABLE removals')
    db.close()
    const readOnly = openSidecarStore(dir, { readonly: true })
    expect(readOnly.removals.get('d1')).toBeUndefined()
    readOnly.close()
    const store = openSidecarStore(dir)
    onTestFinished(() => store.close())
    store.removals.note('d1', BOB, false, 1)
    expect(store.removals.get('d1')).toEqual({ by: BOB, deleted: false })
  })

  it(`keeps at most ${MAX_REMOVALS} rows, forgetting the oldest`, () => {
    const store = openSidecarStore(tempDir())
    onTestFinished(() => store.close())
    for (let i = 0; i <= MAX_REMOVALS + 10; i++) store.removals.note(`d${i}`, BOB, false, i)
    for (let i = 0; i <= 10; i++) expect(store.removals.get(`d${i}`)).toBeUndefined()
    for (const i of [11, 100, MAX_REMOVALS + 10]) expect(store.removals.get(`d${i}`)?.by).toBe(BOB)
  })
})
