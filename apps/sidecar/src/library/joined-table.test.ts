import Database from 'better-sqlite3'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createJoinedTable, JOINED_SCHEMA } from './joined-table.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'
import { openSidecarStore } from '../phases/store.ts'

describe('the joined table', () => {
  it('keeps at most its bound of rows, forgetting the oldest', () => {
    const db = new Database(':memory:')
    onTestFinished(() => void db.close())
    db.exec(JOINED_SCHEMA)
    const table = createJoinedTable(db, ':memory:', false, 3)
    for (let i = 0; i < 5; i++) table.remember('d1', `n:${i}`, i)
    expect(table.list('d1')).toEqual(['n:2', 'n:3', 'n:4'])
  })

  it('keeps who was heard per document across a reopen, and forgets one member or a whole document', () => {
    const dir = tempStoreDir('joined')
    const store = openSidecarStore(dir)
    store.joined.remember('d1', 'n:+15555550102', 1)
    store.joined.remember('d1', 'n:+15555550102', 5)
    store.joined.remember('d1', 'n:+15555550103', 2)
    store.joined.remember('d2', 'n:+15555550102', 3)
    store.close()
    const again = openSidecarStore(dir)
    expect(again.joined.list('d1')).toEqual(['n:+15555550102', 'n:+15555550103'])
    again.joined.forgetMember('d1', 'n:+15555550103')
    expect(again.joined.list('d1')).toEqual(['n:+15555550102'])
    again.joined.forget('d1')
    expect(again.joined.list('d1')).toEqual([])
    expect(again.joined.list('d2')).toEqual(['n:+15555550102'])
    again.close()
    const readOnly = openSidecarStore(dir, { readonly: true })
    expect(readOnly.joined.list('d2')).toEqual(['n:+15555550102'])
    expect(() => readOnly.joined.remember('d3', 'n:+15555550103', 4)).toThrow(/read-only/)
    readOnly.close()
  })
})

describe('the fixed documents’ change times', () => {
  it('keep the latest time across a reopen (an earlier one changes nothing)', () => {
    const dir = tempStoreDir('joined')
    const store = openSidecarStore(dir)
    expect(store.fixedChanges.get('d1')).toBeUndefined()
    store.fixedChanges.touch('d1', 20)
    store.fixedChanges.touch('d1', 10)
    store.close()
    const again = openSidecarStore(dir)
    expect(again.fixedChanges.get('d1')).toBe(20)
    again.fixedChanges.touch('d1', 30)
    expect(again.fixedChanges.get('d1')).toBe(30)
    again.close()
  })
})
