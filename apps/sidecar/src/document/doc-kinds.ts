import type { Kind } from '@e2e-col/protocol'

/** Kinds whose payload is a Yjs update and so feeds the replica. */
export const DOC_KINDS: ReadonlySet<Kind> = new Set<Kind>(['update', 'sync-response', 'snapshot'])
