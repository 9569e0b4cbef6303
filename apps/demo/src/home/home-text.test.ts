import { describe, expect, it } from 'vitest'
import {
  roleText,
  inviteText,
  lastChangeText,
  namer,
  peopleText,
  problemText,
  safetyText,
  sidecarAddress,
  strangerText,
  typedNumbers,
  typedPeople,
  unsentText,
} from './home-text.ts'

const me = { number: '+15555550101', status: 'member' as const, you: true }
const bob = { number: '+15555550102', name: 'Bob', status: 'member' as const, you: false }
const carol = { number: '+15555550103', status: 'invited' as const, you: false }

describe('what the home page says', () => {
  it('names the people a document is shared with, by name or number, with who is only invited', () => {
    expect(peopleText([me])).toBe('only you')
    expect(peopleText([me, bob])).toBe('with Bob')
    expect(peopleText([me, bob, carol])).toBe('with Bob and +15555550103 (invited)')
    expect(peopleText([me, bob, carol], namer([{ number: carol.number, name: 'Carol' }]))).toBe(
      'with Bob and Carol (invited)',
    )
    expect(peopleText([me, { ...carol, status: 'requesting' }, bob, { ...bob, number: '+1555', name: 'Dan' }])).toBe(
      'with +15555550103 (asked to join), Bob and Dan',
    )
  })

  it('says who shared a document, when it last changed, and whether edits wait', () => {
    expect(inviteText({ id: 'x', title: 'Trip plan', from: { number: bob.number, name: 'Bob' }, members: [] })).toBe(
      'Bob shared ‘Trip plan’ with you',
    )
    expect(inviteText({ id: 'x', title: 'Trip plan', members: [] })).toBe('Someone shared ‘Trip plan’ with you')
    expect(lastChangeText(null, 0)).toBe('no changes yet')
    expect(lastChangeText(1_000, 30_000)).toBe('changed just now')
    expect(lastChangeText(0, 60_000)).toBe('changed 1 minute ago')
    expect(lastChangeText(0, 3 * 3_600_000)).toBe('changed 3 hours ago')
    expect(lastChangeText(0, 2 * 86_400_000)).toBe('changed 2 days ago')
    expect([unsentText({ unsentBytes: 0 }), unsentText({ unsentBytes: 12 })]).toEqual([
      'all edits sent',
      'edits waiting to be sent',
    ])
  })

  it('reads typed numbers and explains API refusals', () => {
    expect(typedNumbers('+1 555 555 0102, +1 (555) 555-0103;\n')).toEqual(['+15555550102', '+15555550103'])
    expect(problemText('DOCS_TITLE_TOO_LONG', 'x')).toContain('32 characters')
    expect(problemText('SOMETHING_NEW', 'the message')).toBe('the message')
    expect(problemText('DOCS_DAEMON_FAILED', 'signal-cli failed to create the group (x)')).not.toMatch(
      /group|signal-cli/,
    )
  })

  it('never says "sidecar": the API messages that name it are put in a person\'s words', () => {
    const fromApi: [string, string][] = [
      ['UNREACHABLE', 'your sidecar does not answer'],
      ['API_ORIGIN_NOT_ALLOWED', "this page's origin may not use the documents API"],
      ['DOCS_STOPPING', 'the replica store failed; the sidecar is stopping'],
      ['DOCS_UNSUPPORTED', "this sidecar's daemon backend cannot administer groups"],
      ['API_HOST_NOT_ALLOWED', 'this API answers only on a loopback host name of this sidecar'],
    ]
    for (const [code, message] of fromApi) expect(problemText(code, message)).not.toMatch(/sidecar/i)
    expect(problemText('UNREACHABLE', '')).toContain('Start it again: npm start')
  })

  it('reads a typed sidecar address as the page wants it, and refuses what is not one', () => {
    expect(sidecarAddress(' ws://127.0.0.1:7600 ')).toBe('ws://127.0.0.1:7600')
    expect(sidecarAddress('127.0.0.1:7601')).toBe('ws://127.0.0.1:7601')
    expect(sidecarAddress('http://localhost:7600/v1/docs')).toBe('ws://localhost:7600')
    expect(sidecarAddress('https://box.example:443')).toBe('wss://box.example')
    expect(sidecarAddress('ftp://127.0.0.1:7600')).toBeNull()
    expect(sidecarAddress('not a url at all')).toBeNull()
    expect(sidecarAddress('')).toBeNull()
  })

  it('says roles as the share box offers them, and why a viewer cannot share', () => {
    expect([roleText('editor'), roleText('viewer')]).toEqual(['can edit', 'can view'])
    expect(problemText('DOCS_NOT_EDITOR', 'x')).toMatch(/^You can view this document/)
  })
})

describe('people told apart on the home page', () => {
  const frank = { number: '+15555550142', name: 'Frank', shown: 'Frank (…0142)', inContacts: true }
  const fake = {
    number: '+4915112340777',
    name: 'Frank',
    shown: 'Frank (not in your contacts, …0777)',
    inContacts: false,
  }
  const zed = { number: '+15555550199', name: 'Zed', shown: 'Zed (not in your contacts, …0199)', inContacts: false }
  const dana = { number: '+15555550150', name: 'Dana', shown: 'Dana', inContacts: true }

  it('names people as the sidecar tells them apart, hints included', () => {
    expect(peopleText([me, { ...bob, ...fake, status: 'member', you: false }])).toBe(
      'with Frank (not in your contacts, …0777)',
    )
    expect(namer([fake])({ number: fake.number })).toBe('Frank (not in your contacts, …0777)')
  })

  it('the share box refuses a name two people have, naming both as shown', () => {
    const typed = typedPeople('Frank', [frank, fake, dana])
    expect(typed.ok).toBe(false)
    if (!typed.ok) {
      expect(typed.message).toContain('Frank (…0142)')
      expect(typed.message).toContain('Frank (not in your contacts, …0777)')
    }
    // The name exactly as shown picks one; so does a number; a contact's own name is theirs.
    expect(typedPeople('frank (…0142), dana, +15555550101', [frank, fake, dana])).toEqual({
      ok: true,
      numbers: [frank.number, dana.number, '+15555550101'],
    })
  })

  it('the share box never picks someone who is not a contact by a plain name', () => {
    const typed = typedPeople('Zed', [zed])
    expect(typed).toEqual({
      ok: false,
      message:
        '“Zed” is not in your contacts. Type their number, or “Zed (not in your contacts, …0199)” if you mean them.',
    })
    expect(typedPeople('Zed (not in your contacts, …0199)', [zed])).toEqual({ ok: true, numbers: [zed.number] })
  })

  it('an invitation from someone not in your contacts says so; a changed safety number warns', () => {
    const invite = { id: 'x', title: 'Trip plan', members: [] }
    expect(strangerText({ ...invite, from: fake })).toMatch(/^Not in your contacts/)
    expect(strangerText({ ...invite, from: frank })).toBe('')
    expect(safetyText({ safety: 'changed' })).toMatch(/^safety number changed/)
    expect(safetyText({ safety: 'verified' })).toBe('safety number verified')
    expect(safetyText({})).toBe('')
  })
})
