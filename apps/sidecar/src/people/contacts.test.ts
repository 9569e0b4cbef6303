import { describe, expect, it } from 'vitest'
import type { SignalContact, SignalIdentity } from '@e2e-col/signal-cli'
import { createContacts } from './contacts.ts'

const YOU = '+15555550101'
const FRANK = '+15555550142'
const STRANGER = '+15555550177'
const LISTED: SignalContact[] = [
  { number: YOU, name: 'Me', inContacts: false },
  { number: FRANK, name: 'Frank', inContacts: true },
  { number: STRANGER, name: 'Frank', inContacts: false },
]

describe('contacts as the library shows them', () => {
  it('lists everyone but you, told apart, with the safety-number state listIdentities gives', async () => {
    const identities: SignalIdentity[] = [{ number: STRANGER, safety: 'changed' }]
    const contacts = createContacts({
      listContacts: async () => LISTED,
      listIdentities: async () => identities,
      now: () => 0,
      you: YOU,
    })
    expect(await contacts.fresh()).toEqual([
      { number: FRANK, name: 'Frank', shown: 'Frank (…0142)', inContacts: true },
      {
        number: STRANGER,
        name: 'Frank',
        shown: 'Frank (not in your contacts, …0177)',
        inContacts: false,
        safety: 'changed',
      },
    ])
  })

  it('a daemon without listIdentities still names people; one that cannot list contacts names nobody', async () => {
    const noIdentities = createContacts({
      listContacts: async () => LISTED,
      listIdentities: async () => Promise.reject(new Error('Method not implemented')),
      now: () => 0,
      you: YOU,
    })
    expect((await noIdentities.directory()).tell(FRANK)).toEqual({ shown: 'Frank (…0142)', inContacts: true })
    const down = createContacts({ listContacts: () => Promise.reject(new Error('down')), now: () => 0, you: YOU })
    expect((await down.directory()).tell(FRANK)).toEqual({ shown: FRANK, inContacts: false })
    await expect(down.fresh()).rejects.toMatchObject({ code: 'DOCS_DAEMON_FAILED' })
  })

  it('shownNow answers from the last directory and reads a missing one in the background', async () => {
    let reads = 0
    const contacts = createContacts({
      listContacts: async () => {
        reads++
        return LISTED
      },
      now: () => 0,
      you: YOU,
    })
    expect(contacts.shownNow(STRANGER)).toBeUndefined()
    await expect.poll(() => contacts.shownNow(STRANGER)).toBe('Frank (not in your contacts, …0177)')
    expect(reads).toBe(1)
  })
})

describe('names while the contacts are read again', () => {
  it('keeps showing the names it had after forget (a group update), and reads the new ones', async () => {
    let listed: SignalContact[] = [{ number: FRANK, name: 'Frank', inContacts: true }]
    let reads = 0
    const contacts = createContacts({
      listContacts: async () => {
        reads += 1
        return listed
      },
      now: () => 0,
      you: YOU,
    })
    await contacts.directory()
    expect(contacts.shownNow(FRANK)).toBe('Frank')
    listed = [{ number: FRANK, name: 'Franklin', inContacts: true }]
    contacts.forget()
    // At once, before the daemon answers again: the old name, not a bare number.
    expect(contacts.shownNow(FRANK)).toBe('Frank')
    await expect.poll(() => contacts.shownNow(FRANK)).toBe('Franklin')
    expect(reads).toBe(2)
  })
})
