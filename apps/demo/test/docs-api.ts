/**
 * The documents API over plain HTTP, for the demo's Node-side test steps: every answer is `unknown`
 * and narrowed here, so a changed answer fails with what it was instead of reading `undefined`.
 */

/** One listed document, as far as the tests read it. */
export interface ListedDoc {
  readonly docId: string
  readonly title: string
  readonly state: string
  readonly members: readonly { readonly number: string; readonly status: string }[]
}

/** Calls `method path` on the sidecar at `base` (`ws://…` or `http://…`); a refusal throws with its body. */
export async function callApi(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base.replace(/^ws/, 'http')}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text === '' ? undefined : (JSON.parse(text) as unknown)
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/** The array in `answer[key]`; throws naming the answer when there is none. */
function arrayIn(answer: unknown, key: string): unknown[] {
  const value = isRecord(answer) ? answer[key] : undefined
  if (!Array.isArray(value)) throw new Error(`no ${key} array in ${JSON.stringify(answer)}`)
  return value
}

const isMember = (m: unknown): boolean =>
  isRecord(m) && typeof m['number'] === 'string' && typeof m['status'] === 'string'

/** The documents of a `GET /v1/docs` answer. */
export function listedDocs(answer: unknown): ListedDoc[] {
  return arrayIn(answer, 'documents').map((d) => {
    if (
      !isRecord(d) ||
      typeof d['docId'] !== 'string' ||
      typeof d['title'] !== 'string' ||
      typeof d['state'] !== 'string' ||
      !Array.isArray(d['members']) ||
      !d['members'].every(isMember)
    )
      throw new Error(`not a listed document: ${JSON.stringify(d)}`)
    return d as unknown as ListedDoc
  })
}

/** The invitations of a `GET /v1/invites` answer. */
export const invitesIn = (answer: unknown): unknown[] => arrayIn(answer, 'invites')

/** The new document's id in a `POST /v1/docs` answer. */
export function madeDocId(answer: unknown): string {
  const docId = isRecord(answer) ? answer['docId'] : undefined
  if (typeof docId !== 'string') throw new Error(`no docId in ${JSON.stringify(answer)}`)
  return docId
}
