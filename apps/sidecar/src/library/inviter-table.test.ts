import { describe, expect, it, onTestFinished } from 'vitest'
import { MAX_INVITERS } from './inviter-table.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'
import { openSidecarStore } from '../phases/store.ts'

const tempDir = (): string => tempStoreDir('inviters')

describe('the inviter table', () => {
  it('keeps the first sender of a group across a reopen, until the invitation is forgotten', () => {
    const dir = tempDir()
    const store = openSidecarStore(dir)
    store.inviters.remember('g1', '+15555550103', 1)
    store.inviters.remember('g1', '+15555550102', 2)
    store.close()
    const again = openSidecarStore(dir)
    expect(again.inviters.get('g1')).toBe('+15555550103')
    again.inviters.forget('g1')
    expect(again.inviters.get('g1')).toBeUndefined()
    again.close()
    const readOnly = openSidecarStore(dir, { readonly: true })
    expect(readOnly.inviters.get('g1')).toBeUndefined()
    expect(() => readOnly.inviters.remember('g2', '+15555550103', 3)).toThrow(/read-only/)
    readOnly.close()
  })

  it(`keeps at most ${MAX_INVITERS} rows, forgetting the oldest`, () => {
    const store = openSidecarStore(tempDir())
    onTestFinished(() => store.close())
    for (let i = 0; i <= MAX_INVITERS + 10; i++) store.inviters.remember(`g${i}`, '+15555550103', i)
    for (let i = 0; i <= 10; i++) expect(store.inviters.get(`g${i}`)).toBeUndefined()
    for (const i of [11, 100, MAX_INVITERS + 10]) expect(store.inviters.get(`g${i}`)).toBe('+15555550103')
  })
})
