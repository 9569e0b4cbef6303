/**
 * Every bound of the review structure, in one place. Each is tested (`limits.test.ts` and the
 * tests of the module that enforces it).
 */
export const REVIEW_LIMITS = {
  /** UTF-8 bytes of a suggestion's `find`, and of its `replace`. */
  maxQuoteBytes: 16 * 1024,
  /** UTF-8 bytes of a suggestion's note, a comment's or a reply's body. */
  maxNoteBytes: 4 * 1024,
  /** UTF-8 bytes of an agent's label ("Claude"). */
  maxLabelBytes: 64,
  /** UTF-8 bytes of one review entry as JSON: what a commenter's struct may carry at most. */
  maxEntryBytes: 40 * 1024,
  /** Open (undecided) suggestions one writer may have in a document. */
  maxOpenSuggestionsPerWriter: 100,
  /** Comments and replies one writer may have in a document. */
  maxCommentsPerWriter: 1000,
  /** Entries (structs) in one commenter message. */
  maxEntriesPerUpdate: 64,
  /** Replica structs the commenter check walks for one message's delete set. */
  maxStructsWalked: 65_536,
  /** Bytes of a base token (base64url of a Yjs snapshot). */
  maxBaseChars: 512 * 1024,
  /** Mentions taken from one comment. */
  maxMentions: 16,
  /** Replies one thread takes (made, and listed: a reply past it is not shown). */
  maxRepliesPerThread: 200,
} as const
