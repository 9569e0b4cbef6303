/**
 * Who is a commenter: the non-admins a document group's description names in one tag,
 * `[e2e-col:commenters:+15550001,+15550002]`. In a group with roles only admins may edit the
 * description (`permissionEditDetails: ONLY_ADMINS`), and Signal's servers enforce that, so the
 * tag is an editors' record every member's sidecar reads from the same listing. A non-admin not
 * named stays a viewer (fail closed); a malformed tag names nobody. Pure.
 * @see docs/decisions/0034-review-structure.md "How a member is known to be a commenter"
 */

/** Numbers one tag names at most (Signal's description is bounded; the tag must leave room for the rest). */
export const MAX_COMMENTERS = 24

const TAG = /\[e2e-col:commenters:([^\]]*)\]/
const E164 = /^\+[1-9]\d{6,14}$/

/** The numbers the description's tag names (empty without a well-formed tag). */
export function commentersIn(description: string | null | undefined): readonly string[] {
  const m = typeof description === 'string' ? TAG.exec(description) : null
  if (m === null || m[1] === undefined || m[1] === '') return []
  const numbers = m[1].split(',')
  if (numbers.length > MAX_COMMENTERS || !numbers.every((n) => E164.test(n))) return []
  return [...new Set(numbers)]
}

/** `description` with its tag naming exactly `numbers` (no tag when there are none). */
export function withCommenters(description: string | null | undefined, numbers: readonly string[]): string {
  const rest = (description ?? '').replace(TAG, '').replace(/\s+$/, '')
  if (numbers.length === 0) return rest
  return `${rest} [e2e-col:commenters:${[...new Set(numbers)].join(',')}]`
}
