/**
 * Resolving send targets: group ids (base64 of 16 or 32 bytes) and recipients (E.164 numbers or
 * ACI UUIDs), with signal-cli's -1 messages.
 */
import { decodeJavaBase64 } from '../java-base64.ts'
import { userError } from '../rpc-failure.ts'
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

/** Resolves one recipient to an E.164 number. */
export function resolveRecipient(state: ToySignalState, raw: string): string {
  if (UUID.test(raw)) {
    const number = state.numberOfUuid(raw)
    if (number === undefined) throw userError(`The user ${raw} is not registered.`)
    return number
  }
  if (!E164.test(raw))
    throw userError(`Invalid phone number '${raw}': The string supplied did not seem to be a phone number.`)
  return raw
}
