/**
 * Phase 1, the store: a sidecar never runs without it (exit 9, before any daemon call). Opens the
 * replica store (locking the data folder), loads every fixed document's replica and prunes sent ids
 * past their time to live.
 */
import { AUTHOR_TABLES, authorTableOf, type AuthorTable } from '../authorship/author-table.ts'
import { HISTORY_TABLES, historyTableOf, type HistoryTable } from '../history/history-table.ts'
import { INVITER_TABLES, inviterTableOf, type InviterTable } from '../library/inviter-table.ts'
import { JOINED_TABLES, joinedTableOf, type JoinedTable } from '../library/joined-table.ts'
import { REMOVAL_TABLES, removalTableOf, type RemovalTable } from '../library/removal-table.ts'
import { REVIEW_TABLES, agentTokensOf, type AgentTokens } from '../review/agent-tokens.ts'
import { openReplicaStore, type ReplicaStore } from '../replica/store.ts'
import { PROMOTION_TABLES, promotionTableOf, type PromotionTable } from '../roles/promotion-table.ts'
import type { Basics, Phase } from './phase.ts'

/** The store with the tables of the features that keep their own: each creates and migrates them. */
export interface SidecarStore extends ReplicaStore {
  /** Each document's changes with time and origin, and its versions (history/history-table.ts). */
  readonly history: HistoryTable
  /** Which account each Yjs client id of a document belongs to (authorship/author-table.ts). */
  readonly authors: AuthorTable
  /** The agent tokens' hashes and grants (review/agent-tokens.ts). */
  readonly agentTokens: AgentTokens
  /** Who brought each open invitation (library/inviter-table.ts). */
  readonly inviters: InviterTable
  /** Who removed this account from each removed document, and if it was deleted for everyone (library/removal-table.ts). */
  readonly removals: RemovalTable
  /** Members heard in each document's group (library/joined-table.ts). */
  readonly joined: JoinedTable
  /** Editors invited before Signal let them in, made admins once they join (roles/promotion-table.ts). */
  readonly promotions: PromotionTable
}

/** The features that keep tables of their own, each creating and migrating them on a writable open. */
const FEATURES = [
  HISTORY_TABLES,
  AUTHOR_TABLES,
  REVIEW_TABLES,
  INVITER_TABLES,
  JOINED_TABLES,
  REMOVAL_TABLES,
  PROMOTION_TABLES,
]

/** Opens the store as {@link openReplicaStore} does, with the tables of every feature that keeps its own. */
export function openSidecarStore(dir: string, options: { readonly?: boolean } = {}): SidecarStore {
  const store = openReplicaStore(dir, { ...options, features: FEATURES })
  return {
    ...store,
    history: historyTableOf(store),
    authors: authorTableOf(store),
    agentTokens: agentTokensOf(store),
    inviters: inviterTableOf(store),
    removals: removalTableOf(store),
    joined: joinedTableOf(store),
    promotions: promotionTableOf(store),
  }
}

export interface Stored {
  readonly store: SidecarStore
}

export function openStore(b: Pick<Basics, 'config' | 'clock'>): Phase<Stored> {
  const store = openSidecarStore(b.config.replica.dataDir)
  try {
    // Replicas load on first use (documents.ts, decisions/0040), not here.
    store.sentIds.prune(b.clock.now() - b.config.replica.sentIdsTtlMs, b.config.replica.sentIdsMax)
    return { part: { store }, close: () => store.close() }
  } catch (error) {
    store.close() // releases the data folder's lock
    throw error
  }
}
