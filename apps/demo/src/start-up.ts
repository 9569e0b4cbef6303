/**
 * What every demo page does first: find its elements, and for a document page read its address,
 * showing what is wrong with it or who is editing which document.
 */
import { apiBase, createDocsClient } from './home/docs-client.ts'
import { pageLinks, readPageParams, type PageParams } from './page/page-params.ts'

/** The page's element `#id`; a page without it is a build mistake, so this throws. */
export function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`page is missing #${id}`)
  return el as T
}

/** Shows `text` in the page's `#problem` line. */
export function showProblem(text: string): void {
  const problem = element('problem')
  problem.textContent = text
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
  element('whoami').textContent = name
  element('doc-title').textContent = title ?? 'Shared document'
  if (title === undefined) void titleFromSidecar(parsed.params)
  element<HTMLAnchorElement>('home-link').href = links.home
  element('doc-id').textContent = docId
  element('sidecar').textContent = sidecarUrl
  element<HTMLAnchorElement>('other-view').href = location.pathname.endsWith('rich.html') ? links.text : links.rich
  document.getElementById('console-link')?.setAttribute('href', links.console)
  document.title = `${name} · ${title ?? tabTitle}`
  return parsed.params
}

/** A link without `&title=` (as `npm start` prints): the title from the sidecar, when it answers. */
async function titleFromSidecar(params: PageParams): Promise<void> {
  try {
    const { documents } = await createDocsClient(apiBase(params.sidecarUrl)).list()
    const title = documents.find((d) => d.docId === params.docId)?.title
    if (title === undefined) return
    element('doc-title').textContent = title
    document.title = `${params.name} · ${title}`
  } catch {
    // The sidecar is away or refuses this page: the header keeps its plain name, the advice says why.
  }
}
