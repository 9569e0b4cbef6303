/**
 * The home page's client of the sidecar's documents API (`/v1/docs`, `/v1/invites`,
 * `/v1/contacts`). Every failure is a {@link DocsApiError} with the API's stable code.
 */

/** How the sidecar tells a person apart: `shown` is the name with its hint, one rule for every page. */
export interface Told {
  /** "Frank", "Frank (…0142)", "Frank (not in your contacts, …0142)" or the number (absent from older sidecars). */
  shown?: string
  /** False when the account gave them no name: their name is a profile name anyone can pick. */
  inContacts?: boolean
  /** Signal's safety-number state; `changed` is a warning. */
  safety?: 'verified' | 'unverified' | 'changed'
}
export interface Person extends Told {
  number: string
  name?: string
  status: 'member' | 'invited' | 'requesting'
  you: boolean
  admin?: boolean
  /** What they may do in the document (absent when the sidecar could not list the group). */
  role?: Role
}

/** Editors change the document; viewers only read it. */
export type Role = 'editor' | 'commenter' | 'viewer'
export interface DocumentItem {
  docId: string
  title: string
  members: Person[]
  lastChange: number | null
  unsentBytes: number
  state: 'active' | 'removed'
  fixed: boolean
  /** Who removed this person from a removed document, when the sidecar heard it. */
  removedBy?: { number: string; name?: string } & Told
  /** A removed document an editor deleted for everyone (`removedBy` is who, when heard). */
  deletedForEveryone?: boolean
}
export interface Invite {
  id: string
  title: string
  from?: { number: string; name?: string } & Told
  members: Person[]
}
export interface Contact extends Told {
  number: string
  name?: string
}

export class DocsApiError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.name = 'DocsApiError'
    this.code = code
  }
}

/** The API's base URL for a sidecar named as `ws://HOST:PORT` (or `http://HOST:PORT`). */
export function apiBase(sidecarUrl: string): string {
  const url = new URL(sidecarUrl)
  url.protocol = url.protocol === 'wss:' || url.protocol === 'https:' ? 'https:' : 'http:'
  return url.origin
}

export interface DocsClient {
  /** `notice`: what the sidecar needs the person to know first (this computer no longer linked). */
  list(): Promise<{ you: string; documents: DocumentItem[]; notice?: string }>
  invites(): Promise<Invite[]>
  contacts(): Promise<Contact[]>
  /** `role` is everyone's named (editor when absent). */
  create(title: string, members: readonly string[], role?: Role): Promise<{ docId: string }>
  changeMembers(
    docId: string,
    change: { add?: readonly string[]; remove?: readonly string[]; role?: Role },
  ): Promise<void>
  setRole(docId: string, number: string, role: Role): Promise<void>
  rename(docId: string, title: string): Promise<void>
  leave(docId: string): Promise<void>
  /** An editor deletes the document for everyone in it (it cannot be undone). */
  deleteForEveryone(docId: string): Promise<void>
  accept(id: string): Promise<{ docId: string }>
  decline(id: string): Promise<void>
}

/** People as the API takes them: bare numbers edit, a commenter or viewer is named with its role. */
const withRole = (numbers: readonly string[], role: Role | undefined) =>
  role === 'viewer' || role === 'commenter' ? numbers.map((number) => ({ number, role })) : [...numbers]

/** One call of the sidecar's local API at `base`; its JSON answer. @throws DocsApiError with the API's code */
export async function callApi<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
    })
  } catch {
    throw new DocsApiError('UNREACHABLE', 'e2e-col on this computer does not answer')
  }
  const text = await res.text()
  const json = text === '' ? undefined : (JSON.parse(text) as unknown)
  if (!res.ok) {
    const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error
    throw new DocsApiError(error?.code ?? `HTTP_${res.status}`, error?.message ?? `e2e-col answered ${res.status}`)
  }
  return json as T
}

export function createDocsClient(base: string): DocsClient {
  const call = <T>(method: string, path: string, body?: unknown): Promise<T> => callApi<T>(base, method, path, body)
  return {
    list: () => call('GET', '/v1/docs'),
    invites: async () => (await call<{ invites: Invite[] }>('GET', '/v1/invites')).invites,
    contacts: async () => (await call<{ contacts: Contact[] }>('GET', '/v1/contacts')).contacts,
    create: (title, members, role) => call('POST', '/v1/docs', { title, members: withRole(members, role) }),
    changeMembers: async (docId, change) =>
      void (await call('POST', `/v1/docs/${docId}/members`, {
        add: withRole(change.add ?? [], change.role),
        remove: change.remove ?? [],
      })),
    setRole: async (docId, number, role) =>
      void (await call('PATCH', `/v1/docs/${docId}/members/${encodeURIComponent(number)}`, { role })),
    rename: async (docId, title) => void (await call('PATCH', `/v1/docs/${docId}`, { title })),
    leave: async (docId) => void (await call('DELETE', `/v1/docs/${docId}`, {})),
    deleteForEveryone: async (docId) => void (await call('POST', `/v1/docs/${docId}/delete-for-everyone`, {})),
    accept: (id) => call('POST', `/v1/invites/${id}/accept`, {}),
    decline: async (id) => void (await call('POST', `/v1/invites/${id}/decline`, {})),
  }
}
