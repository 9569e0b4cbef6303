/** Keeps the "Bob is here · typing" line up to date from an Awareness and the document's updates. */
import { REMOTE_ORIGIN } from '@e2e-col/client'
import type { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import { EditTimes, presenceText, TYPING_FOR_MS, type Peer } from './presence.ts'

/** The name a presence state carries (any type: states come from other pages). */
const nameOf = (state: unknown): unknown => (state as { user?: { name?: unknown } } | null)?.user?.name

/** Renders into `el` until the page goes; returns a function that stops it. */
export function mountPresence(el: HTMLElement, awareness: Awareness, doc: Y.Doc): () => void {
  const edits = new EditTimes()
  const render = (): void => {
    const now = Date.now()
    const own = nameOf(awareness.getLocalState())
    // One person with two tabs is one person here; your own other tabs are not "someone else".
    const peers = new Map<string, Peer>()
    for (const [client, state] of awareness.getStates()) {
      const name = nameOf(state)
      if (client === awareness.clientID || typeof name !== 'string' || name === own) continue
      const typing = edits.typing(client, now) || peers.get(name)?.typing === true
      peers.set(name, { name, typing })
    }
    el.textContent = presenceText([...peers.values()])
  }
  const onUpdate = (update: Uint8Array, origin: unknown): void => {
    // Local edits are ours; only a peer's edits say they are typing.
    if (origin === REMOTE_ORIGIN) edits.record(update, Date.now())
    render()
  }
  doc.on('update', onUpdate)
  awareness.on('change', render)
  // Typing fades without any message, so look again now and then.
  const timer = setInterval(render, TYPING_FOR_MS / 3)
  render()
  return () => {
    clearInterval(timer)
    doc.off('update', onUpdate)
    awareness.off('change', render)
  }
}
