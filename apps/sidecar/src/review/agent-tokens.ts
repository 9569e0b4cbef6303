/**
 * Agent tokens (issue #40): a bearer token that lets one local program read and suggest in the
 * documents it names, and nothing else (no accept or reject, no other document, no other route).
 * The review feature owns its table, `review_agent_tokens`; only a token's SHA-256 is stored, so
 * the store's file never holds a usable token. What a token adds and what it does not: docs/review.md
 * "Agent tokens and the local API".
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Database } from 'better-sqlite3'
import { REVIEW_LIMITS } from '@e2e-col/review'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'
import type { FeatureTables, ReplicaStore } from '../replica/store.ts'

/** Documents one token names at most. */
export const MAX_TOKEN_DOCS = 32
/** Tokens one sidecar keeps at most (minting past it is refused; nothing is evicted silently). */
export const MAX_TOKENS = 256
const PREFIX = 'e2ecol_agent_'
const TOKEN = /^e2ecol_agent_[A-Za-z0-9_-]{43}$/

export interface AgentGrant {
  /** The agent's name, shown as "<name>, for <person>". */
  readonly name: string
  readonly docIds: readonly string[]
}

export interface AgentTokens {
  /** A new token for `grant`; only its hash is kept. @throws TokenLimit past a bound */
  mint(grant: AgentGrant, at: number): string
  /** The grant a presented token carries; undefined for anything not minted here. */
  find(token: string): AgentGrant | undefined
}

export class TokenLimit extends Error {}

export const REVIEW_TABLES: FeatureTables = {
  create: (db) =>
    db.exec(
      'CREATE TABLE IF NOT EXISTS review_agent_tokens (hash TEXT PRIMARY KEY, name TEXT NOT NULL, doc_ids TEXT NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;',
    ),
}

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex')

/** The review feature's view of its table in an open store. */
export const agentTokensOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): AgentTokens =>
  createAgentTokens(store.db, store.path, !store.writable)

export function createAgentTokens(db: Database, path: string, readonly: boolean): AgentTokens {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_agent_tokens'").get() !== undefined
  if (!exists || readonly)
    return {
      mint: () => {
        throw new StoreError(path, 'opened read-only')
      },
      find: () => undefined,
    }
  const select = db.prepare<[string], { name: string; doc_ids: string }>(
    'SELECT name, doc_ids FROM review_agent_tokens WHERE hash = ?',
  )
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM review_agent_tokens')
  const insert = db.prepare('INSERT INTO review_agent_tokens (hash, name, doc_ids, at) VALUES (?, ?, ?, ?)')
  return {
    mint(grant, at) {
      if (Buffer.byteLength(grant.name) > REVIEW_LIMITS.maxLabelBytes || grant.name.trim() === '')
        throw new TokenLimit(`an agent's name is 1 to ${REVIEW_LIMITS.maxLabelBytes} bytes`)
      if (grant.docIds.length === 0 || grant.docIds.length > MAX_TOKEN_DOCS)
        throw new TokenLimit(`a token names 1 to ${MAX_TOKEN_DOCS} documents`)
      if ((count.get()?.n ?? 0) >= MAX_TOKENS) throw new TokenLimit(`this sidecar keeps at most ${MAX_TOKENS} tokens`)
      const token = PREFIX + randomBytes(32).toString('base64url')
      guarded(path, 'keep the agent token', () =>
        insert.run(hashOf(token), grant.name, JSON.stringify([...new Set(grant.docIds)]), at),
      )
      return token
    },
    find(token) {
      if (!TOKEN.test(token)) return undefined
      const row = guarded(path, 'read the agent tokens', () => select.get(hashOf(token)))
      if (row === undefined) return undefined
      const docIds: unknown = JSON.parse(row.doc_ids)
      return { name: row.name, docIds: Array.isArray(docIds) ? docIds.filter((d) => typeof d === 'string') : [] }
    },
  }
}
