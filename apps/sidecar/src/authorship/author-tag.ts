/**
 * An account's author tag (docs/decisions/0023): a hash of its phone number folded into the range
 * `@e2e-col/protocol`'s author-id.ts gives. Every member computes the same tag for the same account,
 * and no member picks it; a page writes under client ids made from its own account's tag.
 */
import { authorTagFromHash } from '@e2e-col/protocol'
import { createHash } from 'node:crypto'

const DOMAIN = 'e2e-col author tag v1\n'

/** The author tag of the account with this number (E.164). */
export function authorTagOfAccount(number: string): number {
  return authorTagFromHash(
    createHash('sha256')
      .update(DOMAIN + number, 'utf8')
      .digest(),
  )
}
