import { REVIEW_LIMITS } from '@e2e-col/review'
import { describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch, type KeptBatch } from './kept-batch.ts'

const DOC = '00000000-0000-4000-8000-000000000001'
const item = (n: number) => ({ id: `abcdefgh${n}`, find: `find ${n}`, replace: `replace ${n}` })
const batch = (items: number, more: Partial<KeptBatch> = {}): KeptBatch => ({
  docId: DOC,
  title: 'Trip plan',
  items: Array.from({ length: items }, (_, i) => item(i)),
  ...more,
})

describe('the kept approval batch', () => {
  it('reads back what was written, with or without a title and notes', () => {
    const full = batch(3, { items: [{ ...item(1), note: 'shorter' }, item(2)] })
    expect(decodeBatch(encodeBatch(full), 20)).toEqual(full)
    expect(decodeBatch(encodeBatch(batch(1, { title: undefined })), 20)).toEqual(batch(1, { title: undefined }))
  })

  it('is no batch when it does not parse, is another version, or holds more than a batch may', () => {
    const text = encodeBatch(batch(2))
    expect(decodeBatch(text.slice(0, -1), 20)).toBeUndefined()
    expect(decodeBatch(text.replace('"v":1', '"v":2'), 20)).toBeUndefined()
    expect(decodeBatch(encodeBatch(batch(21)), 20)).toBeUndefined()
    expect(decodeBatch(encodeBatch(batch(20)), 20)?.items).toHaveLength(20)
    expect(decodeBatch(encodeBatch(batch(1, { docId: 'not-a-uuid' })), 20)).toBeUndefined()
    const long = 'x'.repeat(REVIEW_LIMITS.maxQuoteBytes + 1)
    expect(decodeBatch(encodeBatch(batch(0, { items: [{ ...item(1), find: long }] })), 20)).toBeUndefined()
    expect(decodeBatch(encodeBatch(batch(0, { items: [{ ...item(1), id: 'UPPER-case' }] })), 20)).toBeUndefined()
  })
})
