import { describe, expect, it } from 'vitest'
import { advanceReceipt, isFinalReceipt, RECEIPT_EMOJI, type ReceiptState } from './receipts.ts'

describe('receipts', () => {
  it('walks queued → running → done|failed|cancelled', () => {
    for (const end of ['done', 'failed', 'cancelled'] as const) {
      let s: ReceiptState = advanceReceipt(undefined, 'queued')
      s = advanceReceipt(s, 'running')
      expect(advanceReceipt(s, end)).toBe(end)
      expect(isFinalReceipt(end)).toBe(true)
    }
  })
  it('lets a queued message be cancelled without running', () => {
    expect(advanceReceipt('queued', 'cancelled')).toBe('cancelled')
  })
  it.each([
    [undefined, 'running'],
    ['queued', 'done'],
    ['done', 'running'],
    ['cancelled', 'failed'],
    ['running', 'queued'],
  ] as const)('refuses %s → %s', (from, to) => {
    expect(() => advanceReceipt(from, to)).toThrow(expect.objectContaining({ code: 'CHAT_RECEIPT_TRANSITION' }))
  })
  it('has queued and running as the only states a message leaves', () => {
    expect((['queued', 'running', 'done', 'failed', 'cancelled'] as const).map(isFinalReceipt)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ])
  })
  it('names both ends of a refused step', () => {
    expect(() => advanceReceipt(undefined, 'done')).toThrow('receipt cannot go from none to done')
    expect(() => advanceReceipt('done', 'failed')).toThrow('receipt cannot go from done to failed')
  })
  it('shows a distinct reaction for every state', () => {
    expect(new Set(Object.values(RECEIPT_EMOJI)).size).toBe(5)
  })
})
