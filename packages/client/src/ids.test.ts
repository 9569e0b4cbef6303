import { isUuid } from '@e2e-col/protocol'
import { describe, expect, test } from 'vitest'
import { newMessageId, newUuid } from './ids.ts'

describe('ids', () => {
  test('a message id is 32 lowercase hex digits, fresh each time', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newMessageId()))
    expect(ids.size).toBe(50)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/)
  })

  test('a sender id is a canonical version 4 UUID, fresh each time', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newUuid()))
    expect(ids.size).toBe(50)
    for (const id of ids) {
      expect(isUuid(id)).toBe(true)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
  })
})
