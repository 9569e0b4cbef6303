/**
 * The documents this sidecar serves because its person created or accepted them (not those fixed
 * in E2E_COL_DOCUMENTS): document id, group id, title, the members last seen, and when the
 * document last changed. A row exists only once the person has accepted the document, so nothing
 * is stored for an invitation (docs/decisions/0007-documents-and-groups.md). Rows survive restarts.
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

/** One person in a document, as last seen. */
export interface StoredMember {
  readonly number: string
  readonly status: 'member' | 'invited' | 'requesting'
}

export interface StoredDocument {
  readonly docId: string
  readonly groupId: string
  readonly title: string
  readonly members: readonly StoredMember[]
  /** ms: created, or accepted, on this machine. */
  readonly addedAt: number
  /** ms: the last change applied to the replica (0: none yet). */
  readonly changedAt: number
  /** `removed`: this account is no longer in the group; the document is kept but not served. */
  readonly state: 'active' | 'removed'
}

export interface DocumentTable {
  list(): StoredDocument[]
  get(docId: string): StoredDocument | undefined
  /** Inserts or replaces one row (committed when this returns). */
  put(doc: StoredDocument): void
  remove(docId: string): void
  /** Records the time of the latest change. */
  touch(docId: string, at: number): void
}

export const DOCUMENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (doc_id TEXT PRIMARY KEY, group_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, members TEXT NOT NULL, added_at INTEGER NOT NULL, changed_at INTEGER NOT NULL, state TEXT NOT NULL) WITHOUT ROWID;
`

interface Row {
  doc_id: string
  group_id: string
  title: string
  members: string
  added_at: number
  changed_at: number
  state: string
}

function fromRow(r: Row): StoredDocument {
  let members: StoredMember[] = []
  try {
    const parsed = JSON.parse(r.members) as unknown
    if (Array.isArray(parsed))
      members = parsed.filter(
        (m): m is StoredMember => typeof m === 'object' && m !== null && typeof (m as StoredMember).number === 'string',
      )
  } catch {
    // A damaged member list is refreshed from the daemon; the document itself is kept.
  }
  return {
    docId: r.doc_id,
    groupId: r.group_id,
    title: r.title,
    members,
    addedAt: r.added_at,
    changedAt: r.changed_at,
    state: r.state === 'removed' ? 'removed' : 'active',
  }
}

export function createDocumentTable(db: Database, path: string, readonly: boolean): DocumentTable {
  // A store written before the table existed has none when opened read-only.
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'documents'").get() !== undefined
  if (!exists) {
    const refuse = () => {
      throw new StoreError(path, 'opened read-only')
    }
    return { list: () => [], get: () => undefined, put: refuse, remove: refuse, touch: refuse }
  }
  const all = db.prepare<[], Row>('SELECT * FROM documents ORDER BY added_at, doc_id')
  const one = db.prepare<[string], Row>('SELECT * FROM documents WHERE doc_id = ?')
  const writable = () => {
    if (readonly) throw new StoreError(path, 'opened read-only')
  }
  const put = readonly
    ? undefined
    : db.prepare(
        'INSERT OR REPLACE INTO documents (doc_id, group_id, title, members, added_at, changed_at, state) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
  const del = readonly ? undefined : db.prepare('DELETE FROM documents WHERE doc_id = ?')
  const touch = readonly
    ? undefined
    : db.prepare('UPDATE documents SET changed_at = ? WHERE doc_id = ? AND changed_at < ?')
  return {
    list: () => guarded(path, 'list documents', () => all.all().map(fromRow)),
    get: (docId) =>
      guarded(path, 'read a document', () => {
        const r = one.get(docId)
        return r === undefined ? undefined : fromRow(r)
      }),
    put: (d) =>
      guarded(path, 'store a document', () => {
        writable()
        put?.run(d.docId, d.groupId, d.title, JSON.stringify(d.members), d.addedAt, d.changedAt, d.state)
      }),
    remove: (docId) =>
      guarded(path, 'forget a document', () => {
        writable()
        del?.run(docId)
      }),
    touch: (docId, at) =>
      guarded(path, 'record a change time', () => {
        writable()
        touch?.run(at, docId, at)
      }),
  }
}
