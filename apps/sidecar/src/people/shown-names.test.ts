import { describe, expect, it } from 'vitest'
import type { GroupListing, SignalContact } from '@e2e-col/signal-cli'
import { withShownNames } from './shown-names.ts'

// A backend written as a class: its methods need their own `this` (private fields).
class Backend {
  readonly #groups: GroupListing = [
    { id: 'g1', name: 'a\u001b[2Kb', description: 'kept\u202E as it is' },
    { id: 'g2', name: '\u200B' },
    { id: 'g3', name: null },
  ]
  readonly #contacts: SignalContact[] = [
    { number: '+15555550101', name: `${'n'.repeat(100)}\r` },
    { number: '+15555550102', name: '\u2060' },
  ]
  listGroups(): Promise<GroupListing> {
    return Promise.resolve(this.#groups)
  }
  listContacts(): Promise<SignalContact[]> {
    return Promise.resolve(this.#contacts)
  }
  version(): string {
    return `v${this.#groups.length}`
  }
}

describe('withShownNames', () => {
  it('replaces group and contact names, keeps descriptions, and leaves the other methods working', async () => {
    const b = withShownNames(new Backend())
    expect(await b.listGroups()).toEqual([
      { id: 'g1', name: 'a\uFFFD[2Kb', description: 'kept\u202E as it is' },
      { id: 'g2', name: null },
      { id: 'g3', name: null },
    ])
    expect(await b.listContacts()).toEqual([
      { number: '+15555550101', name: `${'n'.repeat(63)}…` },
      { number: '+15555550102', name: undefined },
    ])
    expect(b.version()).toBe('v3')
  })
})
