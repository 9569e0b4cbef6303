/**
 * The home page: the person's documents (title, people, last change, unsent edits), the documents
 * others shared with them (Accept / Decline), and a form to make a new one. It talks to the
 * person's own sidecar (`?sidecar=ws://HOST:PORT`) and refreshes every two seconds.
 */
import { apiBase, createDocsClient, DocsApiError, type Contact, type DocumentItem, type Invite } from './docs-client.ts'
import {
  inviteText,
  lastChangeText,
  namer,
  peopleText,
  personName,
  problemText,
  typedNumbers,
  unsentText,
} from './home-text.ts'
import { element } from '../start-up.ts'

const REFRESH_MS = 2000
const CONTACTS_EVERY = 15

function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = Object.assign(document.createElement(tag), props)
  el.append(...children)
  return el
}

const query = new URLSearchParams(location.search)
const sidecarUrl = query.get('sidecar') ?? ''
const name = (query.get('name') ?? '').trim().slice(0, 40)
const problem = element('problem')
function showProblem(error: unknown): void {
  if (error instanceof DocsApiError) console.warn(`e2e-col: ${error.code}: ${error.message}`)
  problem.textContent = error instanceof DocsApiError ? problemText(error.code, error.message) : String(error)
  problem.hidden = false
}
function clearProblem(): void {
  problem.hidden = true
}

if (!/^(wss?|https?):\/\/[^/]+/.test(sidecarUrl)) {
  showProblem('This page needs ?sidecar=ws://HOST:PORT in its address (npm start prints ready-made links).')
} else {
  start(createDocsClient(apiBase(sidecarUrl)))
}

function editorLink(docId: string, title: string): string {
  const q = new URLSearchParams({ sidecar: sidecarUrl, doc: docId, title })
  if (name !== '') q.set('name', name)
  return `/?${q.toString()}`
}

function start(api: ReturnType<typeof createDocsClient>): void {
  let contacts: Contact[] = []
  let refreshes = 0
  // While a form in a card is open, the lists are not redrawn under the person's fingers.
  let editing = false

  /** Runs an action, shows its failure, refreshes. */
  const act = async (fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn()
      clearProblem()
    } catch (error) {
      showProblem(error)
    }
    editing = false
    refreshes = 0
    await refresh()
  }

  function documentCard(doc: DocumentItem): HTMLLIElement {
    const named = namer(contacts)
    const card = make('li', { className: 'card' })
    card.dataset['doc'] = doc.title
    card.dataset['state'] = doc.state
    const title =
      doc.state === 'active'
        ? make('a', { className: 'title', href: editorLink(doc.docId, doc.title) }, doc.title)
        : make('span', { className: 'title' }, doc.title)
    const meta = make(
      'p',
      { className: 'meta' },
      make(
        'span',
        { className: 'people-text' },
        doc.state === 'removed' ? 'you are no longer in this document' : peopleText(doc.members, named),
      ),
      make('span', { className: 'last-change' }, lastChangeText(doc.lastChange, Date.now())),
      make('span', { className: 'unsent' }, unsentText(doc)),
    )
    const actions = make('div', { className: 'actions' })
    if (doc.state === 'active') {
      const people = make('div', { className: 'people' })
      for (const m of doc.members.filter((p) => !p.you)) {
        const chip = make(
          'span',
          { className: 'person' },
          m.status === 'member' ? named(m) : `${named(m)} (${m.status === 'invited' ? 'invited' : 'asked to join'})`,
        )
        chip.dataset['person'] = named(m)
        // On Signal only admins remove people; when the page cannot tell, it offers it and Signal decides.
        const mayRemove = doc.members.find((p) => p.you)?.admin !== false
        if (!doc.fixed && mayRemove)
          chip.append(
            make('button', {
              type: 'button',
              title: `Stop sharing with ${named(m)}`,
              textContent: 'remove',
              onclick: () => void act(() => api.changeMembers(doc.docId, { remove: [m.number] })),
            }),
          )
        people.append(chip)
      }
      card.append(title, meta, people, actions)
      actions.append(
        inlineForm('Share', 'Name or number', (value) => api.changeMembers(doc.docId, { add: resolvePeople(value) })),
        inlineForm('Rename', doc.title, (value) => api.rename(doc.docId, value)),
      )
      if (!doc.fixed)
        actions.append(
          make('button', { type: 'button', textContent: 'Leave', onclick: () => void act(() => api.leave(doc.docId)) }),
        )
    } else {
      card.append(title, meta, actions)
      actions.append(
        make('button', { type: 'button', textContent: 'Forget', onclick: () => void act(() => api.leave(doc.docId)) }),
      )
    }
    return card
  }

  /** A button that opens a one-field form in place. */
  function inlineForm(label: string, placeholder: string, submit: (value: string) => Promise<unknown>): HTMLElement {
    const wrap = make('span')
    const open = make('button', { type: 'button', textContent: label })
    open.addEventListener('click', () => {
      editing = true
      const input = make('input', { placeholder, required: true })
      input.setAttribute('aria-label', label)
      const form = make(
        'form',
        {},
        input,
        make('button', { type: 'submit', className: 'primary', textContent: label === 'Share' ? 'Add' : 'Save' }),
        make('button', { type: 'button', textContent: 'Cancel', onclick: () => void act(async () => {}) }),
      )
      form.addEventListener('submit', (event) => {
        event.preventDefault()
        void act(() => submit(input.value))
      })
      wrap.replaceChildren(form)
      input.focus()
    })
    wrap.append(open)
    return wrap
  }

  /** A typed name of a contact becomes their number; anything else is read as numbers. */
  function resolvePeople(text: string): string[] {
    const byName = new Map(contacts.map((c) => [personName(c).toLowerCase(), c.number]))
    return text
      .split(/[,;\n]+/)
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .flatMap((t) => byName.get(t.toLowerCase()) ?? typedNumbers(t))
  }

  function inviteCard(invite: Invite): HTMLLIElement {
    const named = namer(contacts)
    const card = make('li', { className: 'card' })
    card.dataset['invite'] = invite.title
    card.append(
      make('p', { className: 'invite-text' }, inviteText(invite, named)),
      make('p', { className: 'meta' }, make('span', {}, peopleText(invite.members, named))),
      make(
        'div',
        { className: 'actions' },
        make('button', {
          type: 'button',
          className: 'primary',
          textContent: 'Accept',
          onclick: () => void act(() => api.accept(invite.id)),
        }),
        make('button', {
          type: 'button',
          textContent: 'Decline',
          onclick: () => void act(() => api.decline(invite.id)),
        }),
      ),
    )
    return card
  }

  function renderContacts(): void {
    const box = element('contact-choices')
    const checked = new Set([...box.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value))
    box.replaceChildren(
      ...contacts.map((c) =>
        make(
          'label',
          {},
          make('input', { type: 'checkbox', name: 'contact', value: c.number, checked: checked.has(c.number) }),
          personName(c),
        ),
      ),
    )
  }

  async function refresh(): Promise<void> {
    if (editing) return
    try {
      // Contacts change rarely: asked for at load, after an action, and every half minute.
      const wantContacts = refreshes++ % CONTACTS_EVERY === 0
      const [list, invites, people] = await Promise.all([
        api.list(),
        api.invites(),
        wantContacts ? api.contacts().catch(() => contacts) : contacts,
      ])
      if (editing) return
      contacts = people
      element('whoami').textContent = name === '' ? list.you : `${name} (${list.you})`
      element('documents').replaceChildren(...list.documents.map(documentCard))
      element('no-documents').hidden = list.documents.length > 0
      element('invites').replaceChildren(...invites.map(inviteCard))
      element('invites-section').hidden = invites.length === 0
      renderContacts()
      if (list.notice !== undefined) showProblem(list.notice)
    } catch (error) {
      showProblem(error)
    }
  }

  const form = element<HTMLFormElement>('new-document')
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const data = new FormData(form)
    const members = [...data.getAll('contact').map(String), ...typedNumbers(String(data.get('numbers') ?? ''))]
    void act(async () => {
      await api.create(String(data.get('title') ?? ''), members)
      form.reset()
    })
  })

  void refresh()
  setInterval(() => void refresh(), REFRESH_MS)
}
