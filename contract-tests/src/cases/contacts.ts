/**
 * `listContacts` (daemon-contract.md §6.4): the JsonContact shape, `allRecipients` and the recipient filter;
 * `listIdentities`: the JsonIdentity shape and its trust levels.
 */
import { expect } from 'vitest'
import { rpcAnswer } from '../http-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, versionAtLeast } from '../target.ts'

const CONTACT_KEYS = [
  'number',
  'uuid',
  'username',
  'name',
  'givenName',
  'familyName',
  'nickName',
  'nickGivenName',
  'nickFamilyName',
  'note',
  'color',
  'isBlocked',
  'isHidden',
  'messageExpirationTime',
  'profileSharing',
  'unregistered',
  'profile',
]
const PROFILE_KEYS = [
  'lastUpdateTimestamp',
  'givenName',
  'familyName',
  'about',
  'aboutEmoji',
  'hasAvatar',
  'mobileCoinAddress',
]

const IDENTITY_KEYS = [
  'number',
  'uuid',
  'fingerprint',
  'safetyNumber',
  'scannableSafetyNumber',
  'trustLevel',
  'addedTimestamp',
]
const TRUST_LEVELS = ['UNTRUSTED', 'TRUSTED_UNVERIFIED', 'TRUSTED_VERIFIED']

interface Contact {
  number: string | null
  uuid: string | null
  profile: Record<string, unknown> | null
  [key: string]: unknown
}

async function listContacts(url: string, params: Record<string, unknown>): Promise<Contact[]> {
  const answer = (await rpcAnswer(url, 'listContacts', params)).json as {
    result?: Contact[]
    error?: unknown
  }
  if (answer.result === undefined) throw new Error(`listContacts failed: ${JSON.stringify(answer.error)}`)
  return answer.result
}

export function registerContactCases(defineCase: DefineCase): void {
  defineCase(
    'account',
    'listContacts answers JsonContact entries; allRecipients adds every known recipient, self included; recipient narrows it',
    async (t) => {
      const { a, b } = fixtures(t)
      // `isArchived` arrived in 0.14.1.
      const keys = new Set(versionAtLeast(t.version, '0.14.1') ? [...CONTACT_KEYS, 'isArchived'] : CONTACT_KEYS)
      const expectShape = (entries: Contact[]): void => {
        for (const entry of entries) {
          expect(new Set(Object.keys(entry))).toEqual(keys)
          if (entry.profile !== null) expect(new Set(Object.keys(entry.profile))).toEqual(new Set(PROFILE_KEYS))
        }
      }
      expectShape(await listContacts(t.url, { account: a }))
      const all = await listContacts(t.url, { account: a, allRecipients: true })
      expectShape(all)
      expect(all.map((c) => c.number)).toEqual(expect.arrayContaining([a, b]))
      const onlyB = await listContacts(t.url, { account: a, allRecipients: true, recipient: [b] })
      expect(onlyB.map((c) => c.number)).toEqual([b])
      expect(onlyB[0]?.uuid).toMatch(/^[0-9a-f-]{36}$/)
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        // The document library's view: contact records plus the people known from groups, self included.
        const numbers = (await c.backend(a).listContacts()).map((x) => x.number)
        expect(numbers).toEqual(expect.arrayContaining([a, b]))
      },
    },
  )
  defineCase(
    'account',
    'listIdentities answers JsonIdentity entries with a TrustLevel name; number narrows it to one person',
    async (t) => {
      const { a, b } = fixtures(t)
      const list = async (params: Record<string, unknown>) => {
        const answer = (await rpcAnswer(t.url, 'listIdentities', params)).json as { result?: Record<string, unknown>[] }
        if (answer.result === undefined) throw new Error(`listIdentities failed: ${JSON.stringify(answer)}`)
        return answer.result
      }
      const all = await list({ account: a })
      for (const entry of all) {
        expect(new Set(Object.keys(entry))).toEqual(new Set(IDENTITY_KEYS))
        expect(TRUST_LEVELS).toContain(entry['trustLevel'])
        // Hex.toString: the serialized key's bytes, spaced ("05 72 40 d7 …").
        expect(entry['fingerprint']).toMatch(/^05( [0-9a-f]{2}){32}$/)
        expect(entry['safetyNumber']).toMatch(/^\d{5}( \d{5}){11}$/)
      }
      for (const entry of await list({ account: a, number: b })) expect(entry['number']).toBe(b)
    },
    {
      client: async (t, c) => {
        const { a } = fixtures(t)
        for (const id of await c.backend(a).listIdentities())
          expect(['verified', 'unverified', 'changed']).toContain(id.safety)
      },
    },
  )
}
