/**
 * What every demo page does first: find its elements, and for a document page read its address,
 * showing what is wrong with it or who is editing which document.
 */
import { apiBase, createDocsClient } from './docs-client.ts'
import { pageLinks, readPageParams, type PageParams } from './page-params.ts'

/** The page's element `#id`; a page without it is a build mistake, so this throws. */
export function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`page is missing #${id}`)
  return el as T
}

/** Sets `text` into `el`, each `command` between backticks as a <code> element (never markup). */
export function setTextWithCode(el: HTMLElement, text: string): void {
  el.replaceChildren(
    ...text.split('`').map((part, i) => {
      if (i % 2 === 0) return part
      const code = document.createElement('code')
      code.textContent = part
      return code
    }),
  )
}

/** Shows `text` in the page's `#problem` line. */
export function showProblem(text: string): void {
  const problem = element('problem')
  setTextWithCode(problem, text)
  problem.hidden = false
}

/**
 * Reads a document page's address (`?sidecar=…&doc=…&name=…`). When it is unusable, says why and
 * returns null; otherwise fills in `#whoami`, `#doc-title` (the title when the home page gave one),
 * the links that keep the page's address (home, the other view, the chat console), the "Details"
 * drawer (id and sidecar, kept out of the header) and the tab's title (`<name> · <tabTitle>`).
 */
export function startDocumentPage(tabTitle: string): PageParams | null {
  const parsed = readPageParams(location.search)
  if (!parsed.ok) {
    showProblem(parsed.problem)
    return null
  }
  const { docId, name, title, sidecarUrl } = parsed.params
  const links = pageLinks(parsed.params)
  // A link without `&name=` (as `e2e-col up` prints) names the person by their number, once known.
  element('whoami').textContent = name === 'me' ? 'you' : name
  element('doc-title').textContent = title ?? 'Shared document'
  void fromSidecar(parsed.params)
  // A rename (here or by anyone in the document) reaches an open page within this long.
  setInterval(() => void fromSidecar(parsed.params), TITLE_EVERY_MS)
  element<HTMLAnchorElement>('home-link').href = links.home
  element('doc-id').textContent = docId
  element('sidecar').textContent = sidecarUrl
  element<HTMLAnchorElement>('other-view').href = location.pathname.endsWith('rich.html') ? links.text : links.rich
  document.getElementById('console-link')?.setAttribute('href', links.console)
  document.title = `${name} · ${title ?? tabTitle}`
  return parsed.params
}

/** How often an open document page asks its sidecar for the document's title, ms. */
const TITLE_EVERY_MS = 5000

/**
 * The title and the person from the sidecar, when it answers: the current title (a link's
 * `&title=` may be from before a rename; `npm start`'s links have none) and, for a link without a
 * name, this account's number.
 */
async function fromSidecar(params: PageParams): Promise<void> {
  try {
    const { you, documents } = await createDocsClient(apiBase(params.sidecarUrl)).list()
    if (params.name === 'me') element('whoami').textContent = you
    const title = documents.find((d) => d.docId === params.docId)?.title
    if (title === undefined || title === element('doc-title').textContent) return
    element('doc-title').textContent = title
    document.title = `${params.name === 'me' ? you : params.name} · ${title}`
    // The address carries the title too: a bookmark or a reload shows the new one.
    const renamed = { ...params, title }
    const url = new URL(location.href)
    url.searchParams.set('title', title)
    history.replaceState(history.state, '', url)
    const links = pageLinks(renamed)
    element<HTMLAnchorElement>('home-link').href = links.home
    element<HTMLAnchorElement>('other-view').href = location.pathname.endsWith('rich.html') ? links.text : links.rich
  } catch {
    // The sidecar is away or refuses this page: the header keeps its plain name, the advice says why.
  }
}
