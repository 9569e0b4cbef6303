/**
 * Where names enter the sidecar from Signal: every group name and contact name the daemon lists
 * passes through {@link shownText} before any part of the sidecar reads it (the daemon client is
wrapped once, where the sidecar builds it), so `/v1/docs`,
 * `/v1/invites`, `/v1/contacts` and the stored titles never hold a control character, a bidi
 * control, a line separator or a name longer than its bound. A group name with nothing visible
 * becomes no name (the library shows "Untitled"), a contact name with nothing visible no name
 * (the number is shown). Descriptions are never shown: they are only searched for the tag.
 * @see docs/reliability.md §2.4
 */
import { shownText } from '@e2e-col/protocol'
import type { GroupListing, SignalContact } from '@e2e-col/signal-cli'
import { MAX_TITLE_CHARS } from '../group/group-tag.ts'

/** Graphemes of a contact's name as shown (Signal profile names are two parts of up to 26). */
export const MAX_CONTACT_NAME_CHARS = 64

interface NameSource {
  listGroups(groupId?: string): Promise<GroupListing>
  /** Only backends that administer documents list contacts. */
  listContacts?(): Promise<SignalContact[]>
}

/** `backend` with its group and contact names made safe to show; every other method is the backend's own. */
export function withShownNames<B extends NameSource>(backend: B): B {
  const listGroups = async (groupId?: string): Promise<GroupListing> =>
    (await backend.listGroups(groupId)).map((g) => ({
      ...g,
      name: shownText(g.name, { maxGraphemes: MAX_TITLE_CHARS }) ?? null,
    }))
  const listContacts = async (): Promise<SignalContact[]> =>
    (await (backend.listContacts?.() ?? Promise.resolve([]))).map((c) => ({
      ...c,
      name: shownText(c.name, { maxGraphemes: MAX_CONTACT_NAME_CHARS }),
    }))
  // A proxy rather than a copy: the backend may be a class whose methods need their own `this`.
  return new Proxy(backend, {
    get(target, key) {
      if (key === 'listGroups') return listGroups
      if (key === 'listContacts') return typeof target.listContacts === 'function' ? listContacts : undefined
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}
