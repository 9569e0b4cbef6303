/**
 * What the home page says, in words about documents and people (never groups or ids).
 */
import type { Contact, DocumentItem, Invite, Person } from './docs-client.ts'

/** A person as the page names them: their name, else their number. */
export function personName(p: { number: string; name?: string | undefined }): string {
  return p.name !== undefined && p.name !== '' ? p.name : p.number
}

/** Names for numbers, from contacts (members carry names only when the sidecar knows them). */
export function namer(contacts: readonly Contact[]): (p: { number: string; name?: string | undefined }) => string {
  const names = new Map(contacts.map((c) => [c.number, c.name]))
  return (p) => personName({ number: p.number, name: p.name ?? names.get(p.number) })
}

/** "with Bob and Carol (invited)", or "only you". */
export function peopleText(members: readonly Person[], name: (p: Person) => string = personName): string {
  const others = members.filter((m) => !m.you)
  if (others.length === 0) return 'only you'
  const words = others.map((m) =>
    m.status === 'member' ? name(m) : `${name(m)} (${m.status === 'invited' ? 'invited' : 'asked to join'})`,
  )
  const list = words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`
  return `with ${list}`
}

/** "changed just now", "changed 5 minutes ago", …, or "no changes yet". */
export function lastChangeText(at: number | null, now: number): string {
  if (at === null) return 'no changes yet'
  const s = Math.max(0, Math.round((now - at) / 1000))
  if (s < 45) return 'changed just now'
  const m = Math.round(s / 60)
  if (m < 60) return `changed ${m} minute${m === 1 ? '' : 's'} ago`
  const h = Math.round(m / 60)
  if (h < 24) return `changed ${h} hour${h === 1 ? '' : 's'} ago`
  const d = Math.round(h / 24)
  return `changed ${d} day${d === 1 ? '' : 's'} ago`
}

/** "all edits sent" or "edits waiting to be sent". */
export function unsentText(doc: Pick<DocumentItem, 'unsentBytes'>): string {
  return doc.unsentBytes > 0 ? 'edits waiting to be sent' : 'all edits sent'
}

/** "Alice shared 'Trip plan' with you". */
export function inviteText(
  invite: Invite,
  name: (p: { number: string; name?: string | undefined }) => string = personName,
): string {
  return `${invite.from === undefined ? 'Someone' : name(invite.from)} shared ‘${invite.title}’ with you`
}

/** Numbers typed into a box: split on commas, spaces and semicolons, spaces inside a number dropped. */
export function typedNumbers(text: string): string[] {
  return text
    .split(/[,;\n]+/)
    .map((t) => t.replace(/[\s().-]/g, ''))
    .filter((t) => t !== '')
}

/** What to tell the person for an API error code. */
export function problemText(code: string, message: string): string {
  switch (code) {
    case 'DOCS_TITLE_EMPTY':
      return 'Give the document a title.'
    case 'DOCS_TITLE_TOO_LONG':
      return 'Titles can be at most 32 characters (Signal’s limit).'
    case 'DOCS_BAD_NUMBER':
      return 'Type phone numbers in international form, like +15555550102.'
    case 'DOCS_TOO_MANY_MEMBERS':
      return 'That is more people than one document can be shared with at once (50).'
    // The details name Signal's own steps; the page keeps to documents and people (they go to the console).
    case 'DOCS_DAEMON_FAILED':
      return 'Signal could not do that just now, so nothing changed. Try again in a moment.'
    case 'DOCS_UNKNOWN_DOCUMENT':
      return 'That document is no longer here.'
    case 'DOCS_UNKNOWN_INVITE':
      return 'That invitation is no longer open.'
    case 'DOCS_NOT_EDITOR':
      return 'You can view this document; only its editors can share it or change who can edit.'
    case 'DOCS_LAST_EDITOR':
      return 'A document keeps at least one editor: make someone else an editor first.'
    case 'UNREACHABLE':
      return 'Your sidecar does not answer. Is it running?'
    case 'API_ORIGIN_NOT_ALLOWED':
      return 'Your sidecar does not accept this page (add its address to E2E_COL_ALLOWED_ORIGINS).'
    default:
      return message
  }
}

/**
 * The sidecar address a person typed (`ws://127.0.0.1:7600`, `127.0.0.1:7600`, `http://…`) as the
 * page's `?sidecar=` value, or null when it is not one.
 */
export function sidecarAddress(typed: string): string | null {
  const text = typed.trim()
  let url: URL
  try {
    url = new URL(/^[a-z]+:\/\//i.test(text) ? text : `ws://${text}`)
  } catch {
    return null
  }
  if (url.protocol === 'http:') url.protocol = 'ws:'
  else if (url.protocol === 'https:') url.protocol = 'wss:'
  if ((url.protocol !== 'ws:' && url.protocol !== 'wss:') || url.hostname === '') return null
  return url.origin
}

/** A person's role in the words of the share box: "can edit" or "can view". */
export function roleText(role: 'editor' | 'viewer'): string {
  return role === 'viewer' ? 'can view' : 'can edit'
}
