import { describe, expect, test } from 'vitest'
import { connectionText, pendingText } from './status-text.ts'

describe('status words on the page', () => {
  test('pending count reads as saved / 1 change / N changes', () => {
    expect(pendingText(0)).toBe('all changes saved')
    expect(pendingText(1)).toBe('1 change waiting')
    expect(pendingText(3)).toBe('3 changes waiting')
  })

  test('connection states have distinct labels', () => {
    expect(new Set((['connecting', 'connected', 'offline'] as const).map(connectionText)).size).toBe(3)
    expect(connectionText('offline')).toBe('offline')
  })
})
