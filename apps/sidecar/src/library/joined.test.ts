import Database from 'better-sqlite3'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createJoinedTable, JOINED_SCHEMA } from './joined-table.ts'
import { createJoined } from './joined.ts'

const YOU = '+15555550101'
const BOB = '+15555550102'

function joinedOverMemory() {
  const db = new Database(':memory:')
  onTestFinished(() => void db.close())
  db.exec(JOINED_SCHEMA)
  const table = createJoinedTable(db, ':memory:', false)
  const make = () => createJoined({ table, you: YOU, now: () => 1, storing: (fn) => fn() })
  return { table, make }
}

describe('who has joined a document', () => {
  it('counts this account always, another member once heard (by number or ACI), per document', () => {
    const { make } = joinedOverMemory()
    const joined = make()
    expect(joined.has('d1', { number: YOU })).toBe(true)
    expect(joined.has('d1', { number: BOB })).toBe(false)
    joined.heard('d1', { number: BOB, uuid: 'ABC' })
    expect(joined.has('d1', { number: BOB })).toBe(true)
    expect(joined.has('d1', { uuid: 'abc' })).toBe(true)
    expect(joined.has('d2', { number: BOB })).toBe(false)
  })

  it('reads what was heard before from the store, and forgets a removed member there too', () => {
    const { table, make } = joinedOverMemory()
    make().heard('d1', { number: BOB })
    make().heard('d1', { number: YOU })
    expect(table.list('d1')).toEqual([`n:${BOB}`])
    const later = make()
    expect(later.has('d1', { number: BOB })).toBe(true)
    later.forgetMember('d1', BOB)
    expect(later.has('d1', { number: BOB })).toBe(false)
    expect(make().has('d1', { number: BOB })).toBe(false)
  })
})
