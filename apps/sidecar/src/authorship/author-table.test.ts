import { describe, expect, it } from 'vitest'
import { openSidecarStore } from '../phases/store.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'

const DOC = '11111111-1111-4111-8111-111111111111'
const OTHER = '22222222-2222-4222-8222-222222222222'
const row = (clientId: number, number: string, relayed = false) => ({ clientId, number, uuid: '', relayed })

describe("the store's authors table", () => {
  it('keeps each document’s rows in the order written, across a restart, a re-put moving a row last', () => {
    const dir = tempStoreDir('authors')
    const store = openSidecarStore(dir)
    const rows = store.authors.rowsOf(DOC)
    rows.batch(() => {
      rows.put(row(1, '+1'))
      rows.put(row(2, '+2', true))
      rows.put(row(3, '+3'))
    })
    rows.put(row(2, '+2'))
    rows.remove([3])
    store.authors.rowsOf(OTHER).put(row(9, '+9'))
    store.close()
    const again = openSidecarStore(dir)
    expect(again.authors.rowsOf(DOC).load()).toEqual([row(1, '+1'), row(2, '+2')])
    expect(again.authors.rowsOf(OTHER).load()).toEqual([row(9, '+9')])
    again.close()
  })

  it('writes nothing of a batch that failed', () => {
    const dir = tempStoreDir('authors-batch')
    const store = openSidecarStore(dir)
    const rows = store.authors.rowsOf(DOC)
    expect(() =>
      rows.batch(() => {
        rows.put(row(1, '+1'))
        throw new Error('stop')
      }),
    ).toThrow()
    expect(rows.load()).toEqual([])
    store.close()
  })
})
