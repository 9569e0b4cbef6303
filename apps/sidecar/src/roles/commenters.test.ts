import { describe, expect, it } from 'vitest'
import { commentersIn, MAX_COMMENTERS, withCommenters } from './commenters.ts'
import { rolesIn } from './roles.ts'

const A = '+15555550101'
const B = '+15555550102'
const C = '+15555550103'
const numbers = (n: number) => Array.from({ length: n }, (_, i) => `+1555555${String(i).padStart(4, '0')}`)

describe('commenters named in the description', () => {
  it('reads back what it writes, keeps the rest of the description, and drops the tag when nobody is named', () => {
    const d = withCommenters('e2e-col sync: mute me. [e2e-col:doc:v1]', [B, C])
    expect(d).toBe('e2e-col sync: mute me. [e2e-col:doc:v1] [e2e-col:commenters:+15555550102,+15555550103]')
    expect(commentersIn(d)).toEqual([B, C])
    expect(withCommenters(d, [])).toBe('e2e-col sync: mute me. [e2e-col:doc:v1]')
  })

  it(`names nobody for a malformed tag or more than ${MAX_COMMENTERS} numbers (fail closed)`, () => {
    expect(commentersIn('[e2e-col:commenters:+1555,evil]')).toEqual([])
    expect(commentersIn(`[e2e-col:commenters:${numbers(MAX_COMMENTERS).join(',')}]`)).toHaveLength(MAX_COMMENTERS)
    expect(commentersIn(`[e2e-col:commenters:${numbers(MAX_COMMENTERS + 1).join(',')}]`)).toEqual([])
    expect(commentersIn(undefined)).toEqual([])
  })

  it('a named non-admin comments only in a group with roles; an admin named stays an editor', () => {
    const entry = {
      id: 'g',
      members: [{ number: A }, { number: B }, { number: C }],
      admins: [{ number: A }],
      description: withCommenters('x', [A, B]),
      permissionEditDetails: 'ONLY_ADMINS',
    }
    const roles = rolesIn(entry, { number: B })
    expect([roles.of({ number: A }), roles.of({ number: B }), roles.of({ number: C }), roles.self]).toEqual([
      'editor',
      'commenter',
      'viewer',
      'commenter',
    ])
    expect(rolesIn({ ...entry, permissionEditDetails: 'ALL_MEMBERS' }, { number: B }).self).toBe('editor')
  })
})
