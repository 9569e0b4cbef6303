import { CAPABILITY } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { createRoster } from './roster.ts'

const ALL = CAPABILITY.deflate | CAPABILITY.attachments
const caps = (features: number) => ({ envelopeVersion: 1, features })

describe('roster: a form goes on Signal only when every current member reads it', () => {
  it('waits for every listed member other than this account, matched by ACI or number', () => {
    const roster = createRoster({ number: '+1', uuid: 'aaaa' })
    roster.setMembers([
      { number: '+1', uuid: 'aaaa' },
      { number: '+2', uuid: 'bbbb' },
      { number: null as unknown as undefined, uuid: 'cccc' },
    ])
    expect(roster.allRead(ALL)).toBe(false)
    roster.announced({ number: '+2' }, caps(ALL))
    expect(roster.allRead(ALL)).toBe(false)
    roster.announced({ uuid: 'CCCC' }, caps(ALL))
    expect(roster.allRead(ALL)).toBe(true)
    // The own account's announcement (another device) never stands in for a member's.
    roster.announced({ number: '+1' }, caps(0))
    expect(roster.allRead(ALL)).toBe(true)
  })

  it('counts a sender seen in the group that is not listed, until it announces', () => {
    const roster = createRoster({ number: '+1' })
    roster.setMembers([{ number: '+1' }])
    expect(roster.allRead(ALL)).toBe(true)
    roster.seen({ number: '+9', uuid: 'old' })
    expect(roster.allRead(CAPABILITY.deflate)).toBe(false)
    roster.announced({ uuid: 'old' }, caps(CAPABILITY.deflate))
    expect([roster.allRead(CAPABILITY.deflate), roster.allRead(ALL)]).toEqual([true, false])
  })

  it('a later announcement replaces the earlier one (a withdrawn capability counts at once)', () => {
    const roster = createRoster({ number: '+1' })
    roster.setMembers([{ number: '+2' }])
    roster.announced({ number: '+2' }, caps(ALL))
    expect(roster.allRead(ALL)).toBe(true)
    roster.announced({ number: '+2' }, caps(CAPABILITY.deflate))
    expect(roster.allRead(ALL)).toBe(false)
    expect(roster.hasAnnounced({ number: '+2' })).toBe(true)
  })
})
