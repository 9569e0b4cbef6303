import { describe, expect, test } from 'vitest'
import { goneFrom, gonePill, goneText } from './gone.ts'

const DOC = '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f'

describe('a document that is no longer this person’s', () => {
  test('is removed when listed as removed (by whom, when known), left when not listed or removed by you, and still theirs when active', () => {
    const you = '+15555550102'
    const alice = { number: '+15555550101', name: 'Alice', shown: 'Alice' }
    expect(goneFrom({ you, documents: [{ docId: DOC, state: 'removed' }] }, DOC)).toEqual({ gone: 'removed' })
    expect(goneFrom({ you, documents: [{ docId: DOC, state: 'removed', removedBy: alice }] }, DOC)).toEqual({
      gone: 'removed',
      by: 'Alice',
    })
    expect(goneFrom({ you, documents: [{ docId: DOC, state: 'removed', removedBy: { number: you } }] }, DOC)).toEqual({
      gone: 'left',
    })
    expect(goneFrom({ you, documents: [{ docId: 'another', state: 'active' }] }, DOC)).toEqual({ gone: 'left' })
    expect(goneFrom({ you, documents: [{ docId: DOC, state: 'active' }] }, DOC)).toBeUndefined()
  })

  test('is said in words about the document, never the sidecar or a command', () => {
    const removed = goneText({ gone: 'removed', by: 'Alice' }, 'Trip plan')
    expect(removed).toMatch(/^Alice stopped sharing ‘Trip plan’ with you\./)
    expect(goneText({ gone: 'removed' }, 'Trip plan')).toMatch(/^Someone in it stopped sharing ‘Trip plan’ with you\./)
    const left = goneText({ gone: 'left' }, 'Trip plan')
    expect(left).toMatch(/^You left ‘Trip plan’\./)
    for (const text of [removed, left]) expect(text).not.toMatch(/sidecar|npm|`/)
    expect([gonePill('removed'), gonePill('left')]).toEqual(['not shared', 'left'])
  })

  test('deleted for everyone: by whom (you included), in words', () => {
    const you = '+15555550102'
    const deleted = (removedBy?: { number: string; name?: string; shown?: string }) =>
      goneFrom(
        {
          you,
          documents: [
            {
              docId: DOC,
              state: 'removed',
              deletedForEveryone: true,
              ...(removedBy === undefined ? {} : { removedBy }),
            },
          ],
        },
        DOC,
      )
    expect(deleted({ number: '+15555550101', name: 'Alice', shown: 'Alice' })).toEqual({
      gone: 'removed',
      deleted: true,
      by: 'Alice',
    })
    expect(deleted({ number: you })).toEqual({ gone: 'removed', deleted: true, by: 'You' })
    expect(deleted()).toEqual({ gone: 'removed', deleted: true })
    expect(goneText({ gone: 'removed', deleted: true, by: 'Alice' }, 'Trip plan')).toMatch(
      /^Alice deleted ‘Trip plan’ for everyone\. This is the last copy/,
    )
    expect(goneText({ gone: 'removed', deleted: true }, 'Trip plan')).toMatch(/^Someone in it deleted ‘Trip plan’/)
  })
})
