/** `@e2e-col/review`: suggestions, comments and the commenter's check (docs/review.md, decision 0034). */
export { baseOf, decodeBase, unchangedSince } from './base.ts'
export { acceptedSpans, type AcceptedSpan } from './credits.ts'
export { addComment, listComments, replyTo, resolveComment, type Comment, type CommentInput } from './comments.ts'
export { countReviewEntries } from './entry-count.ts'
export {
  DECISION_CHAIN_LIMIT,
  removeInserted,
  settlementOf,
  type InsertedRange,
  type Settlement,
} from './concurrent-decisions.ts'
export { REVIEW_ERROR_CODES, ReviewError, type ReviewErrorCode } from './errors.ts'
export { REVIEW_LIMITS } from './limits.ts'
export { parseMentions, type Mentionable } from './mentions.ts'
export {
  checkReviewOnlyUpdate,
  REVIEW_VIOLATIONS,
  type ReviewOnly,
  type ReviewViolation,
  type ReviewViolationCode,
} from './review-only.ts'
export {
  REVIEW_ROOT,
  parseKey,
  reviewMap,
  writerOf,
  type Anchor,
  type CommentEntry,
  type DecisionEntry,
  type DecisionStatus,
  type ResolutionEntry,
  type SuggestionEntry,
  type Target,
} from './structure.ts'
export {
  acceptSuggestion,
  createSuggestion,
  decideWithout,
  isStale,
  listSuggestions,
  nodeOf as placeOfSuggestion,
  type Suggestion,
  type SuggestionInput,
  type SuggestionStatus,
} from './suggestions.ts'
export { readText, type ReadText } from './read-text.ts'
export { extract, type Extracted } from './text-target.ts'
