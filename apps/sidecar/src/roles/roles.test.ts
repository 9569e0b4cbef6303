import { describe, expect, it } from 'vitest'
import type { GroupListing } from '@e2e-col/signal-cli'
import { rolesIn } from './roles.ts'

const A = { number: '+33600000001', uuid: '00000000-0000-4000-8000-000000000001' }
const B = { number: '+33600000002', uuid: '00000000-0000-4000-8000-000000000002' }
const C = { number: '+33600000003', uuid: '00000000-0000-4000-8000-000000000003' }

const group = (permissionEditDetails: string | undefined, admins = [A]): GroupListing[number] => ({
  id: 'g',
  members: [A, B, C],
  admins,
  ...(permissionEditDetails === undefined ? {} : { permissionEditDetails }),
})

describe('the role rule', () => {
  it('in a group where only admins edit details, admins are editors and other members viewers', () => {
    const roles = rolesIn(group('ONLY_ADMINS', [A, B]), C)
    expect(roles.of(A)).toBe('editor')
    expect(roles.of({ uuid: B.uuid })).toBe('editor')
    expect(roles.of({ number: C.number })).toBe('viewer')
    expect(roles.self).toBe('viewer')
    expect(roles.editors).toEqual([A.uuid, B.uuid])
  })

  it('in a group without roles (every member edits details, or not said) everyone is an editor', () => {
    for (const entry of [group('EVERY_MEMBER'), group(undefined)]) {
      const roles = rolesIn(entry, C)
      expect([roles.of(A), roles.of(B), roles.of(C), roles.self]).toEqual(['editor', 'editor', 'editor', 'editor'])
      expect(roles.editors).toHaveLength(3)
    }
  })

  it('in a group with roles, a sender who is not listed, or not named, is a viewer', () => {
    const roles = rolesIn(group('ONLY_ADMINS'), A)
    expect(roles.of({ number: '+33600000009' })).toBe('viewer')
    expect(roles.of(undefined)).toBe('viewer')
    expect(roles.self).toBe('editor')
  })

  it('an old listing that names admins only in `admins` (members as bare numbers) still gives roles', () => {
    const entry: GroupListing[number] = {
      id: 'g',
      members: [A.number, B.number],
      admins: [A.number],
      permissionEditDetails: 'ONLY_ADMINS',
    }
    const roles = rolesIn(entry, { number: B.number })
    expect(roles.of({ number: A.number })).toBe('editor')
    expect(roles.self).toBe('viewer')
  })
})
