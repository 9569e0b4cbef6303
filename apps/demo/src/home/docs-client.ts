/**
 * The home page's client of the sidecar's documents API (`/v1/docs`, `/v1/invites`,
 * `/v1/contacts`). Every failure is a {@link DocsApiError} with the API's stable code.
 */

export interface Person {
  number: string
  name?: string
  status: 'member' | 'invited' | 'requesting'
  you: boolean
  admin?: boolean
}
export interface DocumentItem {
  docId: string
  title: string
  members: Person[]
  lastChange: number | null
  unsentBytes: number
  state: 'active' | 'removed'
  fixed: boolean
}
export interface Invite {
  id: string
  title: string
  from?: { number: string; name?: string }
  members: Person[]
}
export interface Contact {
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
  create(title: string, members: readonly string[]): Promise<{ docId: string }>
  changeMembers(docId: string, change: { add?: readonly string[]; remove?: readonly string[] }): Promise<void>
  rename(docId: string, title: string): Promise<void>
  leave(docId: string): Promise<void>
  accept(id: string): Promise<{ docId: string }>
  decline(id: string): Promise<void>
}

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
    throw new DocsApiError('UNREACHABLE', 'your sidecar does not answer; is it running?')
  }
  const text = await res.text()
  const json = text === '' ? undefined : (JSON.parse(text) as unknown)
  if (!res.ok) {
    const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error
    throw new DocsApiError(error?.code ?? `HTTP_${res.status}`, error?.message ?? `the sidecar answered ${res.status}`)
  }
  return json as T
}

export function createDocsClient(base: string): DocsClient {
  const call = <T>(method: string, path: string, body?: unknown): Promise<T> => callApi<T>(base, method, path, body)
  return {
    list: () => call('GET', '/v1/docs'),
    invites: async () => (await call<{ invites: Invite[] }>('GET', '/v1/invites')).invites,
    contacts: async () => (await call<{ contacts: Contact[] }>('GET', '/v1/contacts')).contacts,
    create: (title, members) => call('POST', '/v1/docs', { title, members }),
    changeMembers: async (docId, change) =>
      void (await call('POST', `/v1/docs/${docId}/members`, { add: change.add ?? [], remove: change.remove ?? [] })),
    rename: async (docId, title) => void (await call('PATCH', `/v1/docs/${docId}`, { title })),
    leave: async (docId) => void (await call('DELETE', `/v1/docs/${docId}`, {})),
    accept: (id) => call('POST', `/v1/invites/${id}/accept`, {}),
    decline: async (id) => void (await call('POST', `/v1/invites/${id}/decline`, {})),
  }
}
