/**
 * What each account knows of other people beyond groups: the names it gave them (contact records,
 * `updateContact`) and their identity keys with the trust it puts in each (`listIdentities`).
 * Keys are made up: a fingerprint and safety number per (account, person, key generation), stable
 * for a run. A person's key changes for everyone at once ({@link PeopleBook.changeIdentity}), and
 * each account then holds the new key as UNTRUSTED, as a trust-on-first-use signal-cli does when
 * the next message under the new key arrives (`IdentityKeyStore.saveIdentity`).
 * @see AsamK/signal-cli `ListIdentitiesCommand`, `UpdateContactCommand`, `TrustLevel`
 */
import { createHash } from 'node:crypto'

/** signal-cli's TrustLevel names. */
export type TrustLevel = 'UNTRUSTED' | 'TRUSTED_UNVERIFIED' | 'TRUSTED_VERIFIED'

/** The name fields of a contact record, as `setContactName` takes them. */
export interface ContactName {
  givenName: string | null
  familyName: string | null
  nickGivenName: string | null
  nickFamilyName: string | null
  note: string | null
}

export interface Identity {
  trustLevel: TrustLevel
  addedTimestamp: number
  fingerprint: string
  safetyNumber: string
  scannableSafetyNumber: string
}

export interface PeopleBook {
  /** The contact record `account` holds for `number`, if any. */
  contact(account: string, number: string): ContactName | undefined
  setContact(account: string, number: string, name: Partial<ContactName>): void
  /** The numbers `account` holds a contact record for. */
  contacted(account: string): string[]
  /** `account`'s view of `number`'s identity key (first seen now, trusted on first use). */
  identity(account: string, number: string): Identity
  /** The numbers whose key `account` holds (once seen, a key is kept, as in signal-cli's store). */
  identified(account: string): string[]
  /** `number` installed Signal again: each of `holders` now holds a new, untrusted key for them. */
  changeIdentity(number: string, holders: readonly string[]): void
  /** `account` compared safety numbers with `number` (`trust --verified-safety-number`). */
  verifyIdentity(account: string, number: string): void
}

/** Contact records and identities bounded per account (a long-running demo toy must not grow). */
const MAX_PEOPLE_PER_ACCOUNT = 10_000

function digits(seed: string, count: number): string {
  let out = ''
  for (let i = 0; out.length < count; i++)
    out += BigInt(`0x${createHash('sha256').update(`${seed}:${i}`).digest('hex')}`)
      .toString()
      .slice(0, 30)
  return out.slice(0, count)
}

function table<T>(all: Map<string, Map<string, T>>, account: string): Map<string, T> {
  let t = all.get(account)
  if (t === undefined) all.set(account, (t = new Map()))
  return t
}

function keep<T>(t: Map<string, T>, number: string, value: T): void {
  if (!t.has(number) && t.size >= MAX_PEOPLE_PER_ACCOUNT) {
    const oldest = t.keys().next()
    if (oldest.done !== true) t.delete(oldest.value)
  }
  t.set(number, value)
}

/**
 * libsignal's scannable fingerprint as signal-cli prints it: the `CombinedFingerprints` protobuf
 * (version 2, then the local and the remote 32-byte fingerprints), base64.
 */
const half = (text: string): Buffer => createHash('sha256').update(text).digest()

function scannable(account: string, seed: string): string {
  return Buffer.concat([
    Buffer.from([0x08, 0x02, 0x12, 0x22, 0x0a, 0x20]),
    half(`scan-local:${account}`),
    Buffer.from([0x1a, 0x22, 0x0a, 0x20]),
    half(`scan:${seed}`),
  ]).toString('base64')
}

export function createPeopleBook(now: () => number): PeopleBook {
  const contacts = new Map<string, Map<string, ContactName>>()
  const identities = new Map<string, Map<string, Identity>>()
  const generations = new Map<string, number>()

  const fresh = (account: string, number: string, trustLevel: TrustLevel): Identity => {
    const seed = `${account}|${number}|${generations.get(number) ?? 0}`
    const safety = digits(seed, 60)
    return {
      trustLevel,
      addedTimestamp: now(),
      // An identity key as signal-cli prints it (Hex.toString): type byte 05 and 32 bytes, spaced.
      fingerprint: `05${createHash('sha256')
        .update(`fp:${number}:${generations.get(number) ?? 0}`)
        .digest('hex')
        .replace(/(..)/g, ' $1')}`,
      safetyNumber: safety.replace(/(\d{5})(?=\d)/g, '$1 '),
      scannableSafetyNumber: scannable(account, seed),
    }
  }

  return {
    contact: (account, number) => contacts.get(account)?.get(number),
    contacted: (account) => [...(contacts.get(account)?.keys() ?? [])],
    setContact(account, number, name) {
      const t = table(contacts, account)
      const before = t.get(number) ?? {
        givenName: null,
        familyName: null,
        nickGivenName: null,
        nickFamilyName: null,
        note: null,
      }
      keep(t, number, { ...before, ...name })
    },
    identity(account, number) {
      const t = table(identities, account)
      const known = t.get(number)
      if (known !== undefined) return known
      // The account's own key is verified (signal-cli trusts its own identity on registration).
      const first = fresh(account, number, account === number ? 'TRUSTED_VERIFIED' : 'TRUSTED_UNVERIFIED')
      keep(t, number, first)
      return first
    },
    identified: (account) => [...(identities.get(account)?.keys() ?? [])],
    changeIdentity(number, holders) {
      generations.set(number, (generations.get(number) ?? 0) + 1)
      for (const account of holders)
        if (account !== number) keep(table(identities, account), number, fresh(account, number, 'UNTRUSTED'))
    },
    verifyIdentity(account, number) {
      const t = table(identities, account)
      const known = t.get(number) ?? fresh(account, number, 'TRUSTED_UNVERIFIED')
      keep(t, number, { ...known, trustLevel: 'TRUSTED_VERIFIED' })
    },
  }
}
