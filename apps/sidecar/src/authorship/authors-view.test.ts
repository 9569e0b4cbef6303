import { describe, expect, it } from 'vitest'
import { authorsView } from './authors-view.ts'

const YOU = { number: '+15550000001', uuid: 'a1a1a1a1-0000-4000-8000-000000000001' }
const BOB = { number: '+15550000002' }

describe('the authors answer', () => {
  it('names verified authors, says who relayed what nobody has claimed yet, and shows a legacy binding unverified', () => {
    const names = new Map([
      ['+15550000001', 'Alice'],
      ['+15550000002', 'Bob'],
    ])
    const view = authorsView(
      [
        { clientId: 11, author: { uuid: YOU.uuid }, verified: true },
        { clientId: 22, author: BOB, verified: true },
        { clientId: 33, relayedBy: BOB },
        { clientId: 44, author: BOB, verified: false },
      ],
      names,
      YOU,
    )
    expect(view.authors).toEqual({
      '11': { number: null, name: null, you: true, verified: true },
      '22': { number: BOB.number, name: 'Bob', you: false, verified: true },
      '33': { verified: false, relayedBy: { number: BOB.number, name: 'Bob', you: false } },
      '44': { verified: false, relayedBy: { number: BOB.number, name: 'Bob', you: false } },
    })
  })

  it("marks a restore's client id with the version it restored, whoever its author", () => {
    const view = authorsView(
      [
        { clientId: 22, author: BOB, verified: true },
        { clientId: 55, author: BOB, verified: true },
      ],
      new Map([['+15550000002', 'Bob']]),
      YOU,
      new Map([[55, 1_700_000_000_000]]),
    )
    expect(view.authors['22']).not.toHaveProperty('restoredFrom')
    expect(view.authors['55']).toEqual({
      number: BOB.number,
      name: 'Bob',
      you: false,
      verified: true,
      restoredFrom: 1_700_000_000_000,
    })
  })
})
