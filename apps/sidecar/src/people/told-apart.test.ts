import { describe, expect, it } from 'vitest'
import { foldName } from '@e2e-col/protocol'
import { withShownNames } from './shown-names.ts'
import { tellApart, type Known } from './told-apart.ts'

const FRANK = '+15555550142'
const STRANGER = '+4915112340777'
const contact = (number: string, name: string | undefined, extra: Partial<Known> = {}): Known => ({
  number,
  name,
  inContacts: true,
  ...extra,
})
const stranger = (number: string, name: string | undefined): Known => ({ number, name, inContacts: false })

describe('people told apart', () => {
  it('a contact whose name is theirs alone is shown by name only', () => {
    expect(tellApart([contact(FRANK, 'Frank')]).tell(FRANK)).toEqual({ shown: 'Frank', inContacts: true })
  })

  it('a stranger named like a contact is shown as not in your contacts, and the contact gets the number tail', () => {
    const told = tellApart([contact(FRANK, 'Frank'), stranger(STRANGER, 'Frank')])
    expect(told.tell(STRANGER)).toEqual({ shown: 'Frank (not in your contacts, …0777)', inContacts: false })
    expect(told.tell(FRANK)).toEqual({ shown: 'Frank (…0142)', inContacts: true })
    expect(told.named('frank').sort()).toEqual([FRANK, STRANGER].sort())
  })

  it('a stranger is flagged even when no one else has the name', () => {
    expect(tellApart([stranger(STRANGER, 'Zed')]).tell(STRANGER).shown).toBe('Zed (not in your contacts, …0777)')
  })

  it('names that read the same collide: case, spacing and compatibility forms are folded', () => {
    expect(foldName('  ＦＲＡＮＫ  ')).toBe('frank')
    const told = tellApart([contact(FRANK, 'Frank'), contact('+15555550143', 'frank  ')])
    expect(told.tell(FRANK).shown).toBe('Frank (…0142)')
    expect(told.tell('+15555550143').shown).toBe('frank   (…0143)')
  })

  it('two people with the same name and the same tail are told apart by the whole number', () => {
    const other = '+33600000142'
    const told = tellApart([contact(FRANK, 'Frank'), contact(other, 'Frank')])
    expect(told.tell(FRANK).shown).toBe(`Frank (${FRANK})`)
    expect(told.tell(other).shown).toBe(`Frank (${other})`)
  })

  it('someone with no name, or only invisible text, is shown by number; someone unknown is not in your contacts', () => {
    const told = tellApart([contact(FRANK, undefined), stranger(STRANGER, ' ')])
    expect(told.tell(FRANK)).toEqual({ shown: FRANK, inContacts: true })
    expect(told.tell(STRANGER).shown).toBe(STRANGER)
    expect(told.tell('+15555550199', 'Mallory')).toEqual({
      shown: 'Mallory (not in your contacts, …0199)',
      inContacts: false,
    })
  })

  it("Signal's safety-number state comes along when the daemon said it", () => {
    const told = tellApart([contact(FRANK, 'Frank', { safety: 'changed' })])
    expect(told.tell(FRANK)).toEqual({ shown: 'Frank', inContacts: true, safety: 'changed' })
  })

  it('a name cannot impersonate the hint: "Frank (…0142)" typed as a profile name is still flagged', () => {
    const told = tellApart([contact(FRANK, 'Frank'), stranger(STRANGER, 'Frank (…0142)')])
    expect(told.tell(STRANGER).shown).toBe('Frank (…0142) (not in your contacts, …0777)')
  })

  it('names from Signal are untrusted text: made safe where they enter, then told apart', async () => {
    // A stranger's profile name with a bidi override, a line break and a fake hint of its own.
    const backend = withShownNames({
      listGroups: async () => [],
      listContacts: async () => [
        { number: FRANK, name: 'Frank', inContacts: true },
        { number: STRANGER, name: 'Frank\u202E\r\n(…0142)', inContacts: false },
      ],
    })
    const told = tellApart(
      (await backend.listContacts()).map((c) => ({ ...c, inContacts: c.inContacts === true })),
    ).tell(STRANGER)
    expect(told.shown).toBe('Frank\uFFFD\uFFFD\uFFFD(…0142) (not in your contacts, …0777)')
    expect(told.shown).not.toMatch(/[\u202A-\u202E\r\n]/)
  })
})
