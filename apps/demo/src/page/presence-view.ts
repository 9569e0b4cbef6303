/** Keeps the "Bob is here · typing" line up to date from an Awareness and the document's updates. */
import { REMOTE_ORIGIN } from '@e2e-col/client'
import type { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import { EditTimes, presenceText, TYPING_FOR_MS, type Peer } from './presence.ts'

/** Renders into `el` until the page goes; returns a function that stops it. */
export function mountPresence(el: HTMLElement, awareness: Awareness, doc: Y.Doc): () => void {
  const edits = new EditTimes()
  const render = (): void => {
    const now = Date.now()
    const peers: Peer[] = []
    for (const [client, state] of awareness.getStates()) {
      if (client === awareness.clientID) continue
      const user = (state as { user?: { name?: unknown } }).user
      if (typeof user?.name !== 'string') continue
      peers.push({ name: user.name, typing: edits.typing(client, now) })
    }
    el.textContent = presenceText(peers)
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
