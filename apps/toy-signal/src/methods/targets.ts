/**
 * Resolving send targets: group ids (base64 of 16 or 32 bytes) and recipients (E.164 numbers or
 * ACI UUIDs), with signal-cli's -1 messages.
 */
import { decodeJavaBase64 } from '../java-base64.ts'
import { internalError, userError } from '../rpc-failure.ts'
import type { ToyGroup, ToySignalState } from '../state.ts'

const E164 = /^\+[1-9]\d{6,14}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/**
 * Validates a group id's form as `GroupId.fromBase64` does: -1 `Invalid group id: …` with Java's
 * decoder text, or `Invalid group id of size N` when it is not 16 or 32 bytes. Returns the id in
 * canonical form (padded), as the daemon prints it.
 */
export function checkGroupId(raw: string): string {
  const fail = (detail: string): never => {
    throw userError(`Invalid group id: Failed to decode groupId (must be base64) "${raw}": ${detail}`)
  }
  const decoded = decodeJavaBase64(raw)
  if (!decoded.ok) return fail(decoded.message)
  const size = decoded.bytes.length
  if (size !== 16 && size !== 32) fail(`Invalid group id of size ${size}`)
  return decoded.bytes.toString('base64')
}

/** Whether the account's store holds the group: it is, was, or is invited to be a member (or asked to join). */
export function seesGroup(group: ToyGroup, account: string): boolean {
  return (
    group.members.includes(account) ||
    group.formerMembers.has(account) ||
    group.pending.includes(account) ||
    group.requesting.includes(account)
  )
}

/** The group as `account` knows it; -1 `Group not found: <id>` when the account never belonged to it. */
export function findGroup(state: ToySignalState, account: string, raw: string): ToyGroup {
  const id = checkGroupId(raw)
  const group = state.groups.get(id)
  if (group === undefined || !seesGroup(group, account)) {
    throw userError(`Group not found: ${id}`)
  }
  return group
}

/**
 * signal-cli's `PhoneNumberFormatter.formatNumber`: only an address with `@` or without a digit or
 * `+` is refused (-1 `Invalid phone number '<raw>': …`); anything else is normalized. A number
 * written with `+` keeps its digits; one without is completed from the local number's country as
 * the formatter's fallback does (libphonenumber's national rules are not modelled).
 */
export function formatNumber(raw: string, localNumber: string): string {
  const refuse = (why: string): never => {
    throw userError(`Invalid phone number '${raw}': ${why}`)
  }
  if (raw.includes('@')) refuse('Possible attempt to use email address.')
  const number = raw.replace(/[^0-9+]/g, '')
  if (number === '') refuse('No valid characters found.')
  if (number.startsWith('+')) return number
  const local = localNumber.replace(/^\+/, '')
  if (number.length >= local.length) return `+${number}`
  return `+${local.slice(0, local.length - number.length)}${number}`
}

/**
 * Resolves one recipient to an E.164 number as `RecipientIdentifier.Single.fromString` does; a
 * missing one is the NullPointerException the real daemon meets. A normalized number that is no
 * E.164 number cannot be anyone on Signal.
 */
export function resolveRecipient(state: ToySignalState, raw: string | undefined, localNumber?: string): string {
  if (raw === undefined)
    throw internalError(
      'Cannot invoke "String.startsWith(String)" because "identifier" is null',
      'NullPointerException',
    )
  if (UUID.test(raw)) {
    const number = state.numberOfUuid(raw)
    if (number === undefined) throw userError(`The user ${raw} is not registered.`)
    return number
  }
  const number = formatNumber(raw, localNumber ?? state.accounts[0] ?? '+1')
  if (!E164.test(number)) throw userError(`The user ${number} is not registered.`)
  return number
}
