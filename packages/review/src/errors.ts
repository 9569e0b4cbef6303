/**
 * The review model's one error class. Codes are stable: the sidecar's HTTP API maps them to
 * statuses (`SUGGESTION_STALE` → 409, `REVIEW_FORBIDDEN` → 403, the input codes → 400).
 */
import { CodedError } from '@e2e-col/protocol'

export const REVIEW_ERROR_CODES = [
  /** `find` does not occur exactly once, or its occurrence changed since `base` (Tiptap's stale-read rule). */
  'SUGGESTION_STALE',
  /** The suggestion's quoted text changed since it was made: it cannot be accepted as if nothing happened. */
  'SUGGESTION_QUOTE_CHANGED',
  /** No suggestion (or comment) with that id. */
  'REVIEW_NOT_FOUND',
  /** The suggestion was already accepted, rejected or withdrawn. */
  'SUGGESTION_DECIDED',
  /** A field is missing, empty where it may not be, or of the wrong type. */
  'REVIEW_BAD_INPUT',
  /** A field is over its byte bound (see limits.ts). */
  'REVIEW_TOO_LARGE',
  /** The member already has the most open suggestions (or comments) a document keeps per member. */
  'REVIEW_TOO_MANY',
  /** `base` is not a token this model wrote (or is over its bound). */
  'REVIEW_BAD_BASE',
  /** `find` spans two blocks of a rich document: a suggestion quotes within one text node. */
  'SUGGESTION_SPANS_BLOCKS',
] as const
export type ReviewErrorCode = (typeof REVIEW_ERROR_CODES)[number]

export class ReviewError extends CodedError<ReviewErrorCode> {
  override readonly name = 'ReviewError'
  /** A machine-readable detail (why stale: `absent`, `ambiguous`, `changed`). */
  readonly detail: string | undefined

  constructor(code: ReviewErrorCode, message: string, detail?: string) {
    super(code, message)
    this.detail = detail
  }
}
