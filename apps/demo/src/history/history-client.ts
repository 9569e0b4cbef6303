/**
 * The editor pages' client of the sidecar's history API (`/v1/docs/<docId>/versions`, `…/restore`,
 * `/v1/docs/<docId>/revert`). Every failure is a `DocsApiError` with the API's stable code.
 * @see docs/documents.md §5
 */
import { callApi, DocsApiError } from '../docs-client.ts'
import type { VersionItem } from './history-text.ts'

/** Versions asked for at once: the panel shows the most recent ones and says when there are more. */
export const PAGE_SIZE = 100

/** The most bytes of a version the page reads (the sidecar's versions are far smaller). */
export interface HistoryClient {
  /** Newest first; `complete` when the list reached the oldest version kept. */
  versions(): Promise<{ versions: VersionItem[]; complete: boolean }>
  /** The version's whole state as a Yjs update. */
  version(id: string): Promise<Uint8Array>
  restore(id: string): Promise<void>
  revert(author: string, since: number): Promise<void>
  /** The whole document as that undo would leave it (a Yjs update); nothing is changed. */
  revertPreview(author: string, since: number): Promise<Uint8Array>
}

export function createHistoryClient(base: string, docId: string): HistoryClient {
  const doc = `/v1/docs/${encodeURIComponent(docId)}`
  return {
    async versions() {
      const { versions } = await callApi<{ versions: VersionItem[] }>(base, 'GET', `${doc}/versions?limit=${PAGE_SIZE}`)
      return { versions, complete: versions.length < PAGE_SIZE }
    },
    version: (id) => bytesOf(fetch(`${base}${doc}/versions/${encodeURIComponent(id)}`)),
    restore: async (id) => void (await callApi(base, 'POST', `${doc}/versions/${encodeURIComponent(id)}/restore`, {})),
    revert: async (author, since) => void (await callApi(base, 'POST', `${doc}/revert`, { author, since })),
    revertPreview: (author, since) =>
      bytesOf(
        fetch(`${base}${doc}/revert`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ author, since, preview: true }),
        }),
      ),
  }
}

/** A document's bytes from the sidecar; its error code as a `DocsApiError`. */
async function bytesOf(request: Promise<Response>): Promise<Uint8Array> {
  let res: Response
  try {
    res = await request
  } catch {
    throw new DocsApiError('UNREACHABLE', 'e2e-col on this computer does not answer')
  }
  if (!res.ok) {
    const json = (await res.json().catch(() => undefined)) as { error?: { code?: string } } | undefined
    throw new DocsApiError(json?.error?.code ?? `HTTP_${res.status}`, `e2e-col answered ${res.status}`)
  }
  return new Uint8Array(await res.arrayBuffer())
}
