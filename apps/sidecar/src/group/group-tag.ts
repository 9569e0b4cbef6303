/**
 * What makes a Signal group an e2e-col document, and the bounds of what a person may type:
 * the group's name is the document's title (Signal's limit: 32 characters), its description says
 * what the group is for and carries the tag {@link DOC_TAG}. Anyone can write the tag, so it only
 * decides what is offered as an invitation, never what is served.
 * @see docs/decisions/0007-documents-and-groups.md
 */
import { checkText, type TextProblem } from '@e2e-col/protocol'

/** The machine-readable mark in a document group's description. */
export const DOC_TAG = '[e2e-col:doc:v1]'
/** Signal's limit for group names (Signal-Desktop `GroupTitleInput`), counted in characters as people see them. */
export const MAX_TITLE_CHARS = 32
/** People named in one create or share request (besides the person themself). */
export const MAX_MEMBERS_PER_CHANGE = 50
/** Disappearing-messages timer of document groups on a linked device: one day. */
export const LINKED_DEVICE_EXPIRATION_SECONDS = 86_400

const E164 = /^\+[1-9]\d{6,14}$/

/** The description a new document group gets. */
export function documentDescription(): string {
  return `e2e-col sync: mute me. This group carries one shared e2e-col document; its messages are data for e2e-col, not for reading. ${DOC_TAG}`
}

/**
 * The mark an editor's sidecar writes into the description before removing everyone, when the
 * daemon cannot end the group (signal-cli before 0.14.8): a member removed from a group that
 * carries it reads the removal as the document deleted for everyone (decisions/0028).
 */
export const DELETED_TAG = '[e2e-col:deleted]'

/** The description of a document deleted for everyone without `terminateGroup`. */
export function deletedDescription(): string {
  return `e2e-col sync: this document was deleted for everyone. ${DOC_TAG} ${DELETED_TAG}`
}

/** True when a group's description says its document was deleted for everyone. */
export function isDeletedGroup(description: string | null | undefined): boolean {
  return typeof description === 'string' && description.includes(DELETED_TAG)
}

/** True when a group's description marks it as an e2e-col document. */
export function isDocumentGroup(description: string | null | undefined): boolean {
  return typeof description === 'string' && description.includes(DOC_TAG)
}

/** A title as people type it, trimmed; or what is wrong with it (controls, bidi controls, nothing visible…). */
export function checkTitle(raw: string): { ok: true; title: string } | { ok: false; problem: TextProblem } {
  const t = checkText(raw, { maxGraphemes: MAX_TITLE_CHARS })
  return t.ok ? { ok: true, title: t.text } : t
}

/** True for an E.164 phone number (`+` and 7 to 15 digits). */
export function isPhoneNumber(text: string): boolean {
  return E164.test(text)
}

/** What DOCS_TITLE_INVALID says a title contains. */
export const TITLE_PROBLEMS: Readonly<Record<'control' | 'bidi-control' | 'invisible-only', string>> = {
  control: 'control characters (line breaks, escape sequences)',
  'bidi-control': 'bidi controls (they reorder the text as shown)',
  'invisible-only': 'nothing visible (only spaces or zero-width characters)',
}
