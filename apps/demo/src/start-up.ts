/**
 * What every demo page does first: find its elements, and for a document page read its address,
 * showing what is wrong with it or who is editing which document.
 */
import { readPageParams, type PageParams } from './page/page-params.ts'

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
 * returns null; otherwise fills in `#whoami`, `#doc-id` (the title when the home page gave one) and
 * the tab's title (`<name> · <tabTitle>`).
 */
export function startDocumentPage(tabTitle: string): PageParams | null {
  const parsed = readPageParams(location.search)
  if (!parsed.ok) {
    showProblem(parsed.problem)
    return null
  }
  const { docId, name, title } = parsed.params
  element('whoami').textContent = name
  element('doc-id').textContent = title ?? docId
  document.title = `${name} · ${tabTitle}`
  return parsed.params
}
