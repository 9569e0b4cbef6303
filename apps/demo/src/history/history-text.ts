/**
 * What the History panel says, in plain words: who changed a version and when ("Bob, Alice ·
 * 10:42"), what the undo button undoes, the note for a person who joined later, and errors.
 * Names come from Signal and are untrusted: they are only ever set as text, never as markup.
 */

/** One author of a version as the sidecar lists it. */
export interface VersionAuthor {
  readonly number: string
  readonly name: string | null
  readonly you: boolean
}

/** One version as the sidecar lists it (`GET /v1/docs/<docId>/versions`). */
export interface VersionItem {
  readonly id: string
  readonly at: number
  readonly reason: string
  readonly authors: readonly VersionAuthor[]
  /** On a revert: whose changes it undid. */
  readonly undid?: VersionAuthor
  /** On a restore: the time of the version it restored. */
  readonly restoredFrom?: number
  readonly chars?: number
}

/** How the page writes a moment: the time of day, and the day. */
export interface Clock {
  time(ms: number): string
  day(ms: number): string
}

/** A person as the panel names them: "You", their shown name, else their number. */
export function authorName(a: VersionAuthor): string {
  if (a.you) return 'You'
  return a.name !== null && a.name.trim() !== '' ? a.name : a.number
}

/** "10:42:07" today, "1 Dec, 10:42:07" another day (the clock's own form). */
export function whenText(at: number, now: number, clock: Clock): string {
  const day = clock.day(at)
  return day === clock.day(now) ? clock.time(at) : `${day}, ${clock.time(at)}`
}

const REASONS: Readonly<Record<string, string>> = {
  restore: 'restored an earlier version',
  revert: "undid someone's changes",
  'catch-up': 'changes that arrived together',
  start: 'as first kept here',
}

/**
 * How much longer or shorter the text became since the version before: "+12 characters",
 * "−1200 characters", "same length"; undefined when either count is unknown. Two versions by the
 * same person in the same minute are told apart by it (a wipe and the typing before it).
 */
export function sizeText(v: VersionItem, before: VersionItem | undefined): string | undefined {
  if (v.chars === undefined) return undefined
  const from = before === undefined ? 0 : before.chars
  if (from === undefined) return undefined
  const delta = v.chars - from
  if (delta === 0) return 'same length'
  const n = Math.abs(delta)
  return `${delta > 0 ? '+' : '\u2212'}${n} character${n === 1 ? '' : 's'}`
}

/**
 * "Bob, Alice · 10:42:07 · +12 characters", with what the version was for when it is not plain
 * editing. `before` is the version listed after it (the one before in time), for the size of the change.
 */
export function versionText(v: VersionItem, now: number, clock: Clock, before?: VersionItem): string {
  // Content relayed in a sync answer has no author: it is the group's, not one person's.
  const people = v.authors.length === 0 ? 'Changes from the group' : v.authors.map(authorName).join(', ')
  const why =
    v.reason === 'revert' && v.undid !== undefined
      ? `undid ${v.undid.you ? 'your' : `${authorName(v.undid)}’s`} changes`
      : v.reason === 'restore' && v.restoredFrom !== undefined
        ? `restored the version of ${whenText(v.restoredFrom, now, clock)}`
        : REASONS[v.reason]
  const size = sizeText(v, before)
  return `${people} · ${whenText(v.at, now, clock)}${size === undefined ? '' : ` · ${size}`}${why === undefined ? '' : ` · ${why}`}`
}

/** What "Undo …" would undo for the version at `index` of the newest-first list, or undefined. */
export interface UndoOffer {
  readonly author: string
  readonly since: number
  readonly label: string
}

/**
 * The undo offers of a version, for each other person in it. When the entries just before it are
 * theirs too (a wipe, then typing), the first offer undoes their changes since the start of that
 * run of entries, so undoing their newest entry also undoes the wipe before it; the second, this
 * entry's changes alone. Otherwise one offer: their changes since the version before. The oldest
 * version has nothing before it to keep, so a run stops short of it.
 */
export function undoOffers(list: readonly VersionItem[], index: number, now: number, clock: Clock): UndoOffer[] {
  const v = list[index]
  const before = list[index + 1]
  if (v === undefined || before === undefined) return []
  // Changes of the spell before end at or before its version's time; this spell's start after it.
  const offer = (a: VersionAuthor, from: VersionItem, note: string): UndoOffer => ({
    author: a.number,
    since: from.at + 1,
    label: `Undo ${authorName(a)}’s changes since ${whenText(from.at + 1, now, clock)}${note}`,
  })
  return v.authors
    .filter((a) => !a.you)
    .flatMap((a) => {
      let start = index
      const theirs = (i: number) => list[i]?.authors.some((b) => b.number === a.number) === true
      while (list[start + 2] !== undefined && theirs(start + 1)) start++
      const from = list[start + 1] as VersionItem
      if (start === index) return [offer(a, before, '')]
      return [offer(a, from, ` (${start - index + 1} entries)`), offer(a, before, ' (this entry only)')]
    })
}

/**
 * "You have history from when you joined on 1 Dec, 10:42": said when the listing (newest first)
 * reached the oldest version and the first content this sidecar held came relayed by the group (a
 * version with content and no author: a sync answer holding what was written before it joined).
 * Versions before it may be empty: a member's edit can arrive before the content it builds on.
 * Undefined when the first content was someone's own edit (the document began with this sidecar).
 */
export function joinedLaterText(list: readonly VersionItem[], complete: boolean, clock: Clock): string | undefined {
  const oldest = list.at(-1)
  if (!complete || oldest === undefined) return undefined
  // The list is newest first: the first content is the last version with any.
  const withContent = list.filter((v) => (v.chars ?? 0) > 0)
  const firstContent = withContent[withContent.length - 1]
  if (firstContent === undefined || firstContent.authors.length > 0) return undefined
  return `You have history from when you joined on ${clock.day(oldest.at)}, ${clock.time(oldest.at)}; what happened before is kept by the people who were there.`
}

/** What a viewer reads where an editor finds Restore and Undo (and if the sidecar refused them). */
export const VIEWER_HISTORY_TEXT =
  'You can view this document, so you can look at its versions; only its editors restore them or undo changes.'

const ERRORS: Readonly<Record<string, string>> = {
  UNREACHABLE: 'e2e-col on this computer does not answer. Start it again: npm start.',
  HISTORY_DOCUMENT_LEFT: 'You left this document, so its history cannot be changed here.',
  HISTORY_UNKNOWN_DOCUMENT: 'e2e-col on this computer does not have this document.',
  HISTORY_UNKNOWN_VERSION: 'That version is no longer kept. Choose another one.',
  HISTORY_TOO_OLD:
    'Changes that old are no longer kept, so they cannot be undone one person at a time. Restore a version instead.',
  HISTORY_NOT_APPLIED: 'e2e-col could not make the change right now. Try again in a moment.',
  HISTORY_NOT_EDITOR: VIEWER_HISTORY_TEXT,
  API_ORIGIN_NOT_ALLOWED:
    'e2e-col on this computer does not accept this page; add its address to E2E_COL_ALLOWED_ORIGINS.',
  BAD_VERSION: 'That version could not be read.',
}

/** An error from the history API as a sentence; never the raw code. */
export function historyErrorText(code: string): string {
  return ERRORS[code] ?? 'Something went wrong with the history. Try again in a moment.'
}
