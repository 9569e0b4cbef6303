import { describe, expect, test } from 'vitest'
import { goneFrom, gonePill, goneText } from './gone.ts'

const DOC = '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f'

describe('a document that is no longer this person’s', () => {
  test('is removed when listed as removed, left when not listed, and still theirs when active', () => {
    expect(goneFrom([{ docId: DOC, state: 'removed' }], DOC)).toBe('removed')
    expect(goneFrom([{ docId: 'another', state: 'active' }], DOC)).toBe('left')
    expect(goneFrom([{ docId: DOC, state: 'active' }], DOC)).toBeUndefined()
  })

  test('is said in words about the document, never the sidecar or a command', () => {
    const removed = goneText('removed', 'Trip plan')
    expect(removed).toMatch(/^‘Trip plan’ is no longer shared with you/)
    expect(goneText('left', 'Trip plan')).toMatch(/^You left ‘Trip plan’\./)
    for (const text of [removed, goneText('left', 'Trip plan')]) expect(text).not.toMatch(/sidecar|npm|`/)
    expect([gonePill('removed'), gonePill('left')]).toEqual(['not shared', 'left'])
  })
})
