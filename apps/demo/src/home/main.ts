/**
 * The home page: the person's documents (title, people, last change, unsent edits), the documents
 * others shared with them (Accept / Decline), and a form to make a new one. It talks to the
 * person's own sidecar (`?sidecar=ws://HOST:PORT`) and refreshes every two seconds. Without that
 * address it explains what a sidecar is and asks for it.
 */
import { documentCard, inviteCard, roleFrom, type CardPort } from './cards.ts'
import { apiBase, createDocsClient, DocsApiError, type Contact, type DocsClient } from '../docs-client.ts'
import { namer, personName, problemText, safetyText, sidecarAddress, typedPeople } from './home-text.ts'
import { make } from './make.ts'
import { keepList, keptCard, keptList, showAway } from './kept-list.ts'
import { element, setTextWithCode } from '../start-up.ts'
import { keepPagesOffline } from '../offline-shell.ts'

keepPagesOffline()

const REFRESH_MS = 2000
const CONTACTS_EVERY = 15

const query = new URLSearchParams(location.search)
const sidecarUrl = query.get('sidecar') ?? ''
const name = (query.get('name') ?? '').trim().slice(0, 40)
const problem = element('problem')
function showProblem(error: unknown): void {
  if (error instanceof DocsApiError) console.warn(`e2e-col: ${error.code}: ${error.message}`)
  // Commands between backticks (the sidecar's notices name them so) are shown as code, not as backticks.
  setTextWithCode(problem, error instanceof DocsApiError ? problemText(error.code, error.message) : String(error))
  problem.hidden = false
}
function clearProblem(): void {
  problem.hidden = true
  delete problem.dataset['away']
}

/**
 * The sidecar does not answer: the command that starts it, the documents listed last time (each
 * opens the copy this browser kept), and no New document form (nothing could be made).
 */
function showAwayPage(): void {
  showAway(problem)
  setMaking(false)
  const kept = keptList(sidecarUrl)
  if (kept === undefined) {
    // Nothing kept from an earlier visit: no list, and not "No documents yet" either.
    element('documents').replaceChildren()
    element('no-documents').hidden = true
    return
  }
  element('whoami').textContent = name === '' ? kept.you : `${name} (${kept.you})`
  element('documents').replaceChildren(...kept.documents.map((d) => keptCard(d, editorLink(d.docId, d.title))))
  element('no-documents').hidden = kept.documents.length > 0
  element('invites-section').hidden = true
}

/** The New document form on or off (off while the sidecar does not answer). */
function setMaking(on: boolean): void {
  const form = element<HTMLFormElement>('new-document')
  for (const control of form.elements) (control as HTMLInputElement).disabled = !on
  form.dataset['off'] = String(!on)
}

if (!/^(wss?|https?):\/\/[^/]+/.test(sidecarUrl)) askForSidecar()
else start(createDocsClient(apiBase(sidecarUrl)))

/** The bare address: say what the page needs, and take the sidecar's address from the person. */
function askForSidecar(): void {
  element('documents-page').hidden = true
  element('no-sidecar').hidden = false
  element('whoami').textContent = 'not known yet'
  const form = element<HTMLFormElement>('sidecar-form')
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const address = sidecarAddress(String(new FormData(form).get('sidecar') ?? ''))
    if (address === null) {
      showProblem('Type the address e2e-col printed when it started, like ws://127.0.0.1:7600.')
      return
    }
    location.assign(`/home.html?${new URLSearchParams({ ...(name === '' ? {} : { name }), sidecar: address })}`)
  })
}

function editorLink(docId: string, title: string): string {
  const q = new URLSearchParams({ sidecar: sidecarUrl, doc: docId, title })
  if (name !== '') q.set('name', name)
  return `/?${q.toString()}`
}

function start(api: DocsClient): void {
  let contacts: Contact[] = []
  let refreshes = 0
  // While a form in a card is open, the lists are not redrawn under the person's fingers.
  let editing = false

  const port: CardPort = {
    api,
    editorLink,
    hold: () => {
      editing = true
    },
    act: async (fn) => {
      try {
        await fn()
        clearProblem()
      } catch (error) {
        showProblem(error)
      }
      editing = false
      refreshes = 0
      await refresh()
    },
    resolvePeople: (text) => {
      // A typed name becomes a number only when it names one contact; otherwise the page asks.
      const typed = typedPeople(text, contacts)
      if (!typed.ok) throw new DocsApiError('PAGE_NAME_AMBIGUOUS', typed.message)
      return typed.numbers
    },
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
          ...(c.safety === 'changed'
            ? [make('span', { className: 'safety safety-changed', title: safetyText(c) }, '⚠')]
            : []),
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
      if (problem.dataset['away'] === 'true') clearProblem()
      setMaking(true)
      keepList(sidecarUrl, list.you, list.documents)
      contacts = people
      const named = namer(contacts)
      element('whoami').textContent = name === '' ? list.you : `${name} (${list.you})`
      element('documents').replaceChildren(...list.documents.map((doc) => documentCard(port, doc, named)))
      element('no-documents').hidden = list.documents.length > 0
      element('invites').replaceChildren(...invites.map((invite) => inviteCard(port, invite, named)))
      element('invites-section').hidden = invites.length === 0
      renderContacts()
      if (list.notice !== undefined) showProblem(list.notice)
    } catch (error) {
      if (error instanceof DocsApiError && error.code === 'UNREACHABLE') showAwayPage()
      else showProblem(error)
    }
  }

  const form = element<HTMLFormElement>('new-document')
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const data = new FormData(form)
    void port.act(async () => {
      // Names typed here are read as in a card's Share box: a contact's name, or a number.
      const members = [...data.getAll('contact').map(String), ...port.resolvePeople(String(data.get('numbers') ?? ''))]
      await api.create(String(data.get('title') ?? ''), members, roleFrom(data.get('role')))
      form.reset()
    })
  })

  void refresh()
  setInterval(() => void refresh(), REFRESH_MS)
}
