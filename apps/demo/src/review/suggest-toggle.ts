/**
 * The "Suggest changes" switch of the plain page, at the top of the Suggestions list: on, the
 * person's typing becomes a suggestion (suggest-codemirror.ts) sent through their sidecar, which
 * reads its own replica for the base and writes the suggestion under this account. A viewer does
 * not see the switch (page.css): the sidecar would refuse them (REVIEW_FORBIDDEN).
 */
import type { EditorView } from '@codemirror/view'
import { apiBase, callApi, DocsApiError } from '../docs-client.ts'
import { element } from '../start-up.ts'
import { problemText } from './mount-review.ts'
import { suggestMode } from './suggest-codemirror.ts'

export const SUGGESTING_TEXT = 'Suggest mode: what you type becomes a suggestion. Enter sends it, Escape drops it.'

/** Sends a suggestion of the plain text through the sidecar; rejects with words for the person. */
export function sender(sidecarUrl: string, docId: string): (find: string, replace: string) => Promise<void> {
  const base = apiBase(sidecarUrl)
  const doc = `/v1/docs/${encodeURIComponent(docId)}`
  return async (find, replace) => {
    try {
      const read = await callApi<{ base: string }>(base, 'GET', `${doc}/text`)
      await callApi(base, 'POST', `${doc}/suggestions`, { base: read.base, find, replace })
    } catch (error) {
      if (error instanceof DocsApiError && error.code === 'SUGGESTION_STALE')
        throw new Error(
          'The text you changed is not yet, or no longer, the same on e2e-col on this computer; try again in a moment.',
          { cause: error },
        )
      throw new Error(problemText(error), { cause: error })
    }
  }
}

/** Creates suggest mode for the page; `mount` adds its switch once the editor exists. */
export function suggestSwitch(o: { sidecarUrl: string; docId: string; colour: string }) {
  const mode = suggestMode({
    colour: o.colour,
    send: sender(o.sidecarUrl, o.docId),
    say(text, problem) {
      const line = element('suggest-line')
      line.textContent = text ?? SUGGESTING_TEXT
      line.classList.toggle('problem', problem)
    },
  })
  return {
    extension: mode.extension,
    mount(view: EditorView): void {
      const button = document.createElement('button')
      button.id = 'suggest-toggle'
      button.type = 'button'
      button.textContent = 'Suggest changes'
      button.setAttribute('aria-pressed', 'false')
      const line = document.createElement('p')
      line.id = 'suggest-line'
      line.className = 'suggest-line'
      line.setAttribute('role', 'status')
      line.hidden = true
      element('review').querySelector('h2')?.after(button, line)
      button.addEventListener('click', () => {
        const on = button.getAttribute('aria-pressed') !== 'true'
        button.setAttribute('aria-pressed', String(on))
        line.textContent = SUGGESTING_TEXT
        line.classList.remove('problem')
        line.hidden = !on
        mode.set(view, on)
        view.focus()
      })
    },
  }
}
