/**
 * What the home page says, in words about documents and people (never groups or ids).
 */
import { foldName } from '@e2e-col/protocol'
import type { Contact, DocumentItem, Invite, Person, Told } from '../docs-client.ts'

/** A person as the page sees them from the sidecar. */
export type Named = { number: string; name?: string | undefined } & Pick<Told, 'shown'>

/**
 * A person as the page names them: as the sidecar tells them apart (`shown`: the name with a hint
 * when it collides or is not a contact's), else their name, else their number.
 */
export function personName(p: Named): string {
  if (p.shown !== undefined && p.shown !== '') return p.shown
  return p.name !== undefined && p.name !== '' ? p.name : p.number
}

/** Names for numbers, from contacts (members carry names only when the sidecar knows them). */
export function namer(contacts: readonly Contact[]): (p: Named) => string {
  const byNumber = new Map(contacts.map((c) => [c.number, c]))
  return (p) => {
    const c = byNumber.get(p.number)
    if (p.shown !== undefined || c === undefined) return personName(p)
    return personName({
      number: p.number,
      name: p.name ?? c.name,
      ...(c.shown === undefined ? {} : { shown: c.shown }),
    })
  }
}

/** What to say next to a person about their safety number ('' when the sidecar did not say). */
export function safetyText(p: Pick<Told, 'safety'>): string {
  switch (p.safety) {
    case 'verified':
      return 'safety number verified'
    case 'unverified':
      return 'safety number not verified'
    case 'changed':
      return 'safety number changed: compare it in Signal before you trust them'
    default:
      return ''
  }
}

/** The line an invitation from someone not in your contacts carries ('' otherwise). */
export function strangerText(invite: Pick<Invite, 'from'>): string {
  if (invite.from === undefined) return 'Nobody you know is named as sharing this. Accept only if you expected it.'
  return invite.from.inContacts === false
    ? 'Not in your contacts: anyone can pick any name on Signal. Accept only if you know who this is.'
    : ''
}

/** Items of a typed list: split on commas, semicolons and lines, but not inside a hint's parentheses. */
function typedItems(text: string): string[] {
  const items: string[] = []
  let depth = 0
  let current = ''
  for (const ch of text) {
    if (ch === '(') depth++
    else if (ch === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === ',' || ch === ';' || ch === '\n')) {
      items.push(current)
      current = ''
    } else current += ch
  }
  items.push(current)
  return items.map((t) => t.trim()).filter((t) => t !== '')
}

/** What a typed list of people becomes: numbers, or why it cannot be read without guessing. */
export type TypedPeople = { ok: true; numbers: string[] } | { ok: false; message: string }

/**
 * Names and numbers typed into a share box, as numbers. A name is never resolved by guessing: the
 * name exactly as shown (with its hint) picks that person; a plain name picks a contact only when
 * it is theirs alone; a name more than one person has, or a name that is not a contact's, is
 * refused with the names as shown, so the person can pick.
 */
export function typedPeople(text: string, contacts: readonly Contact[]): TypedPeople {
  const numbers: string[] = []
  for (const typed of typedItems(text)) {
    const key = foldName(typed)
    const exact = contacts.filter((c) => c.shown !== undefined && foldName(c.shown) === key)
    if (exact.length === 1 && exact[0] !== undefined) {
      numbers.push(exact[0].number)
      continue
    }
    const named = contacts.filter((c) => c.name !== undefined && foldName(c.name) === key)
    const only = named[0]
    if (named.length > 1)
      return {
        ok: false,
        message: `More than one person is named “${typed}”: ${named.map(personName).join('; ')}. Type the one you mean as shown, or their number.`,
      }
    if (only !== undefined && only.inContacts === false)
      return {
        ok: false,
        message: `“${typed}” is not in your contacts. Type their number, or “${personName(only)}” if you mean them.`,
      }
    if (only !== undefined) numbers.push(only.number)
    else numbers.push(...typedNumbers(typed))
  }
  return { ok: true, numbers }
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
export function inviteText(invite: Invite, name: (p: Named) => string = personName): string {
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
      return 'e2e-col on this computer does not answer. Start it again: npm start.'
    case 'API_ORIGIN_NOT_ALLOWED':
      return 'e2e-col on this computer does not accept this page (add its address to E2E_COL_ALLOWED_ORIGINS).'
    // The API's own messages for these name its internals; the page says what a person can do.
    case 'DOCS_STOPPING':
      return 'e2e-col on this computer is stopping, so nothing changed. Start it again: npm start.'
    case 'DOCS_UNSUPPORTED':
      return 'This e2e-col cannot share documents: it runs without a Signal account that can make groups.'
    case 'API_HOST_NOT_ALLOWED':
      return 'Open this page through 127.0.0.1 or localhost: e2e-col answers only on this computer.'
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

/** A person's role in the words of the share box: "can edit", "can comment" or "can view". */
export function roleText(role: 'editor' | 'commenter' | 'viewer'): string {
  return role === 'viewer' ? 'can view' : role === 'commenter' ? 'can comment' : 'can edit'
}
