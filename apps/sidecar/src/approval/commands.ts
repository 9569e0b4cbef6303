/**
 * What the person may reply in Note to Self to decide an agent's suggestions from the phone
 * (decision 0039): `accept 1`, `reject 2`, `accept 1 3`, `accept all`, `reject all`; any case,
 * white space around and between the words. Anything else is the person's own note and is not a
 * command. The text comes from Signal: it is untrusted, and parsed only against this shape. Pure.
 */

/** A reply's decision: the numbers of the latest list it names, or all of them. */
export interface ApprovalCommand {
  readonly verb: 'accept' | 'reject'
  readonly items: 'all' | readonly number[]
}

/** The most numbers one command names (a list never holds more: APPROVAL_LIMITS.itemsPerBatch). */
export const MAX_COMMAND_NUMBERS = 20

// Short on purpose: a long body is no command, whatever it holds.
const MAX_COMMAND_CHARS = 120
const SHAPE = /^(accept|reject)\s+(all|\d{1,3}(?:[\s,]+\d{1,3})*)$/i

/** The command a Note-to-Self body is, or undefined when it is none (the person's own note). */
export function parseApprovalCommand(body: string): ApprovalCommand | undefined {
  if (body.length > MAX_COMMAND_CHARS) return undefined
  const m = SHAPE.exec(body.trim())
  if (m?.[1] === undefined || m[2] === undefined) return undefined
  const verb = m[1].toLowerCase() === 'accept' ? 'accept' : 'reject'
  if (m[2].toLowerCase() === 'all') return { verb, items: 'all' }
  const numbers = [...new Set(m[2].split(/[\s,]+/).map(Number))]
  if (numbers.length > MAX_COMMAND_NUMBERS) return undefined
  return { verb, items: numbers }
}
