/**
 * Resolving send targets: group ids (base64 of 16 or 32 bytes) and recipients (E.164 numbers or
 * ACI UUIDs), with signal-cli's -1 messages.
 */
import { userError } from '../rpc-failure.ts'
import type { ToyGroup, ToySignalState } from '../state.ts'

const E164 = /^\+[1-9]\d{6,14}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Validates a group id's form: -1 `Invalid group id: …` when it is not base64 of 16 or 32 bytes. */
export function checkGroupId(raw: string): string {
  const fail = (detail: string): never => {
    throw userError(`Invalid group id: Failed to decode groupId (must be base64) "${raw}": ${detail}`)
  }
  if (!BASE64.test(raw)) fail('Illegal base64 character')
  const size = Buffer.from(raw, 'base64').length
  if (size !== 16 && size !== 32) fail(`Invalid group id length: ${size}`)
  return raw
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
