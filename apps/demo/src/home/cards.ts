/**
 * The home page's cards: a document (people, last change, share / rename / remove / leave) and an
 * invitation (accept / decline). Destructive actions ask first, in place.
 */
import type { DocsClient, DocumentItem, Invite, Person, Role, Told } from '../docs-client.ts'
import {
  inviteText,
  lastChangeText,
  peopleText,
  roleText,
  safetyText,
  strangerText,
  unsentText,
  type Named as NamedPerson,
} from './home-text.ts'
import { make } from './make.ts'

type Named = (p: NamedPerson) => string

/** What the cards need from the page. */
export interface CardPort {
  readonly api: DocsClient
  /** Runs an action, shows its failure, redraws. */
  act(fn: () => Promise<unknown>): Promise<void>
  /** While a card's form is open, the page does not redraw under the person's fingers. */
  hold(): void
  /** The editor's address for a document. */
  editorLink(docId: string, title: string): string
  /** Contact names and numbers typed into a box, as numbers. @throws when a name would be a guess */
  resolvePeople(text: string): string[]
}

/** A select's value as a role (anything else edits, as before roles). */
export const roleFrom = (v: unknown): Role => (v === 'viewer' || v === 'commenter' ? v : 'editor')

/** "can edit" / "can comment" / "can view", as a select named `role`. */
export function roleSelect(selected: Role, label: string): HTMLSelectElement {
  const select = make(
    'select',
    { name: 'role' },
    ...(['editor', 'commenter', 'viewer'] as const).map((r) =>
      make('option', { value: r, selected: r === selected }, roleText(r)),
    ),
  )
  select.setAttribute('aria-label', label)
  return select
}

/** A button that opens a one-field form in place (the share form also asks "can edit" / "can view"). */
function inlineForm(
  port: CardPort,
  label: string,
  placeholder: string,
  submit: (value: string, role: Role) => Promise<unknown>,
): HTMLElement {
  const wrap = make('span')
  const open = make('button', { type: 'button', textContent: label })
  // Cancel puts the button back at once; the lists are redrawn after, when the sidecar answers.
  const cancel = (): void => {
    wrap.replaceChildren(open)
    void port.act(async () => {})
  }
  open.addEventListener('click', () => {
    port.hold()
    const input = make('input', { placeholder, required: true })
    input.setAttribute('aria-label', label)
    const role = label === 'Share' ? roleSelect('editor', `${label}: what they may do`) : undefined
    const form = make(
      'form',
      {},
      input,
      ...(role === undefined ? [] : [role]),
      make('button', { type: 'submit', className: 'primary', textContent: label === 'Share' ? 'Add' : 'Save' }),
      make('button', { type: 'button', textContent: 'Cancel', onclick: cancel }),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void port.act(() => submit(input.value, roleFrom(role?.value)))
    })
    wrap.replaceChildren(form)
    input.focus()
  })
  wrap.append(open)
  return wrap
}

/**
 * A button whose action happens only after a second, explicit click on the question it puts in its
 * place ("Stop sharing with Bob? Remove · Keep"): nothing destructive happens on one click.
 */
export function confirmingButton(
  port: CardPort,
  o: { label: string; title: string; question: string; confirm: string; run: () => Promise<unknown> },
): HTMLElement {
  const wrap = make('span', { className: 'confirming' })
  const first = make('button', { type: 'button', title: o.title, textContent: o.label })
  // Cancel takes the question away at once; the lists are redrawn after, when the sidecar answers.
  const cancel = (): void => {
    wrap.replaceChildren(first)
    void port.act(async () => {})
  }
  const ask = (): void => {
    port.hold()
    const yes = make('button', {
      type: 'button',
      className: 'danger',
      textContent: o.confirm,
      onclick: () => void port.act(o.run),
    })
    wrap.replaceChildren(
      make('span', { className: 'question' }, o.question),
      yes,
      make('button', { type: 'button', textContent: 'Cancel', onclick: cancel }),
    )
    yes.focus()
  }
  first.addEventListener('click', ask)
  wrap.append(first)
  return wrap
}

/** Signal's safety-number state next to a person (nothing when the sidecar did not say); a change warns. */
function safetyMark(p: Told): HTMLElement | undefined {
  const text = safetyText(p)
  // Not verified is how most people are: no mark (a lone "·" read as a stray dot).
  if (text === '' || p.safety === undefined || p.safety === 'unverified') return undefined
  const symbol = p.safety === 'changed' ? '⚠' : '✓'
  const mark = make('span', { className: `safety safety-${p.safety}`, title: text, textContent: symbol })
  mark.setAttribute('aria-label', text)
  mark.dataset['safety'] = p.safety
  return mark
}

/** A person's role: a select for an editor of the document (it changes it at once), else words. */
function roleOf(port: CardPort, doc: DocumentItem, m: Person, who: string): HTMLElement | undefined {
  if (m.role === undefined || m.status !== 'member') return undefined
  if (doc.fixed || (doc.members.find((p) => p.you)?.role ?? 'editor') !== 'editor')
    return make('span', { className: 'role' }, roleText(m.role))
  const select = roleSelect(m.role, `What ${who} may do`)
  select.addEventListener('change', () => {
    const role = roleFrom(select.value)
    void port.act(() => port.api.setRole(doc.docId, m.number, role))
  })
  return select
}

function personChips(port: CardPort, doc: DocumentItem, named: Named): HTMLElement {
  const people = make('div', { className: 'people' })
  // On Signal only admins remove people; when the page cannot tell, it offers it and Signal decides.
  const mayRemove = !doc.fixed && doc.members.find((p) => p.you)?.admin !== false
  for (const m of doc.members.filter((p) => !p.you)) {
    const who = named(m)
    const chip = make(
      'span',
      { className: 'person' },
      m.status === 'member' ? who : `${who} (${m.status === 'invited' ? 'invited' : 'asked to join'})`,
    )
    chip.dataset['person'] = who
    if (m.inContacts === false) chip.dataset['stranger'] = 'true'
    const mark = safetyMark(m)
    if (mark !== undefined) chip.append(mark)
    if (m.role !== undefined) chip.dataset['role'] = m.role
    const role = roleOf(port, doc, m, who)
    if (role !== undefined) chip.append(' · ', role)
    if (mayRemove)
      chip.append(
        confirmingButton(port, {
          label: 'remove',
          title: `Stop sharing with ${who}`,
          question: `Stop sharing ‘${doc.title}’ with ${who}?`,
          confirm: 'Remove',
          run: () => port.api.changeMembers(doc.docId, { remove: [m.number] }),
        }),
      )
    people.append(chip)
  }
  return people
}

/** Who else a deletion reaches, as the question names them: "Alice and Bob"; "you" when nobody else is in it. */
function everyoneText(doc: DocumentItem, named: Named): string {
  const others = doc.members.filter((m) => !m.you).map((m) => named(m))
  if (others.length === 0) return 'you'
  if (others.length === 1) return others[0] ?? ''
  return `${others.slice(0, -1).join(', ')} and ${others.at(-1) ?? ''}`
}

/** "Alice deleted ‘Trip plan’ for everyone" (you: "You deleted…"; unknown: "Someone deleted…"). */
function deletedText(doc: DocumentItem, named: Named): string {
  const by = doc.removedBy
  const who = by === undefined ? 'Someone' : doc.members.find((m) => m.you)?.number === by.number ? 'You' : named(by)
  return `${who} deleted ‘${doc.title}’ for everyone`
}

export function documentCard(port: CardPort, doc: DocumentItem, named: Named): HTMLLIElement {
  const card = make('li', { className: 'card' })
  card.dataset['doc'] = doc.title
  card.dataset['state'] = doc.state
  // A removed document opens too: its editor shows the last copy this browser kept, read-only.
  const title = make('a', { className: 'title', href: port.editorLink(doc.docId, doc.title) }, doc.title)
  const meta = make(
    'p',
    { className: 'meta' },
    make(
      'span',
      { className: 'people-text' },
      doc.state === 'removed'
        ? doc.deletedForEveryone === true
          ? 'deleted for everyone'
          : 'you are no longer in this document'
        : peopleText(doc.members, named),
    ),
    ...(doc.state === 'removed'
      ? [
          ...(doc.deletedForEveryone === true
            ? [make('span', { className: 'removed-by' }, deletedText(doc, named))]
            : doc.removedBy === undefined
              ? []
              : [make('span', { className: 'removed-by' }, `${named(doc.removedBy)} stopped sharing it with you`)]),
          make('span', { className: 'removed-hint' }, 'open it to read the last copy this browser kept'),
        ]
      : []),
    make('span', { className: 'last-change' }, lastChangeText(doc.lastChange, Date.now())),
    make('span', { className: 'unsent' }, unsentText(doc)),
  )
  const actions = make('div', { className: 'actions' })
  if (doc.state !== 'active') {
    card.append(title, meta, actions)
    // A fixed document (E2E_COL_DOCUMENTS) whose group was ended is forgotten where it is fixed.
    if (doc.fixed) return card
    actions.append(
      confirmingButton(port, {
        label: 'Forget',
        title: `Remove ‘${doc.title}’ from this list; its text stays stored on this computer`,
        question: `Forget ‘${doc.title}’? It leaves this list; its text stays stored on this computer, so nothing is lost if it is shared with you again.`,
        confirm: 'Forget',
        run: () => port.api.leave(doc.docId),
      }),
    )
    return card
  }
  card.append(title, meta, personChips(port, doc, named), actions)
  actions.append(
    inlineForm(port, 'Share', 'Name or number', (value, role) =>
      port.api.changeMembers(doc.docId, { add: port.resolvePeople(value), role }),
    ),
    inlineForm(port, 'Rename', doc.title, (value) => port.api.rename(doc.docId, value)),
  )
  // Only an editor may delete a document for everyone (Signal lets only an admin end a group).
  if (!doc.fixed && (doc.members.find((p) => p.you)?.role ?? 'editor') === 'editor')
    actions.append(
      confirmingButton(port, {
        label: 'Delete for everyone',
        title: `Delete ‘${doc.title}’ for everyone in it`,
        question: `Delete ‘${doc.title}’ for ${everyoneText(doc, named)}? This cannot be undone.`,
        confirm: 'Delete',
        run: () => port.api.deleteForEveryone(doc.docId),
      }),
    )
  if (!doc.fixed)
    actions.append(
      confirmingButton(port, {
        label: 'Leave',
        title: `Leave ‘${doc.title}’`,
        question: `Leave ‘${doc.title}’? You stop receiving it, and only its people can share it with you again.`,
        confirm: 'Leave',
        run: () => port.api.leave(doc.docId),
      }),
    )
  return card
}

export function inviteCard(port: CardPort, invite: Invite, named: Named): HTMLLIElement {
  const card = make('li', { className: 'card' })
  card.dataset['invite'] = invite.title
  const stranger = strangerText(invite)
  if (stranger !== '') card.dataset['stranger'] = 'true'
  const from = invite.from === undefined ? undefined : safetyMark(invite.from)
  card.append(
    make('p', { className: 'invite-text' }, inviteText(invite, named)),
    ...(from === undefined
      ? []
      : [make('p', { className: 'invite-safety' }, from, ` ${safetyText(invite.from ?? {})}`)]),
    ...(stranger === '' ? [] : [make('p', { className: 'stranger-note' }, stranger)]),
    make('p', { className: 'meta' }, make('span', {}, peopleText(invite.members, named))),
    make(
      'div',
      { className: 'actions' },
      make('button', {
        type: 'button',
        className: 'primary',
        textContent: 'Accept',
        onclick: () => void port.act(() => port.api.accept(invite.id)),
      }),
      make('button', {
        type: 'button',
        textContent: 'Decline',
        onclick: () => void port.act(() => port.api.decline(invite.id)),
      }),
    ),
  )
  return card
}
