/**
 * A restore's record in the document itself, so every member's sidecar knows which letters it
 * re-created: a root map the sidecar owns (`e2e-col.restores`, not content) with one entry per
 * restore, keyed by the client id the restore wrote under and written under that same id. The entry
 * names the version's time and, span by span, which original letters each run of the restore's
 * copies stands in for (`[client, clock, length, copy clock]`). Anything in it came from Signal:
 * an entry is read only when written under the client id it names (a member announces only its own
 * restores; the sidecar lets a member write only under its own ids), well formed and within bounds.
 * @see docs/decisions/0031-restore-writes-anew.md
 */
import * as Y from 'yjs'

/** The root map the restore records live in; roots named `e2e-col.` are the sidecar's, not content. */
export const RESTORES_ROOT = 'e2e-col.restores'
/** Spans one record may hold (four numbers each); a restore with more is not recorded. */
export const MAX_RESTORE_SPANS = 100_000
/** Records read from one document, newest per key first. */
export const MAX_RESTORE_RECORDS = 1_000

export interface RestoreRecord {
  /** The client id the restore wrote under (its copies and this entry). */
  readonly clientId: number
  /** The restored version's time (ms since 1970), as the restorer's sidecar listed it. */
  readonly versionAt: number
  /** Flat `[original client, original clock, length, copy clock]` runs, copies under `clientId`. */
  readonly spans: readonly number[]
  /** The entry's own clock: which change carried it. */
  readonly clock: number
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0

/** The record a well-formed entry's value holds; undefined for anything else. */
function parse(value: unknown, clientId: number, clock: number): RestoreRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { at, spans } = value as { at?: unknown; spans?: unknown }
  if (!isCount(at) || !Array.isArray(spans) || spans.length % 4 !== 0) return undefined
  if (spans.length > MAX_RESTORE_SPANS * 4 || !spans.every(isCount)) return undefined
  for (let i = 2; i < spans.length; i += 4) if (spans[i] === 0) return undefined
  return { clientId, versionAt: at, spans: spans as number[], clock }
}

/** Writes the record of a restore into `work`, whose client id is the restore's; false when too big. */
export function writeRestoreRecord(work: Y.Doc, versionAt: number, spans: readonly number[]): boolean {
  if (spans.length > MAX_RESTORE_SPANS * 4) return false
  work.getMap(RESTORES_ROOT).set(String(work.clientID), { at: versionAt, spans: [...spans] })
  return true
}

/**
 * Every acceptable record `doc` holds (overwritten ones too while their content is kept, as in a
 * document built without garbage collection), at most {@link MAX_RESTORE_RECORDS}.
 */
export function readRestoreRecords(doc: Y.Doc): RestoreRecord[] {
  const root = doc.share.get(RESTORES_ROOT)
  if (root === undefined) return []
  const out: RestoreRecord[] = []
  // Every entry the store holds, overwritten ones too: the root's own map names only the newest.
  for (const structs of doc.store.clients.values())
    for (const item of structs) {
      if (!(item instanceof Y.Item) || item.parent !== root || item.parentSub !== String(item.id.client)) continue
      if (!(item.content instanceof Y.ContentAny)) continue
      const r = parse(item.content.getContent()[0], item.id.client, item.id.clock)
      if (r !== undefined) out.push(r)
      if (out.length >= MAX_RESTORE_RECORDS) return out
    }
  return out
}

/**
 * Watches `doc` for restores it has not seen: each call answers the first new one recorded since
 * the last call (cheap when none: the entries are counted first).
 */
export function restoreWatch(doc: Y.Doc): () => RestoreRecord | undefined {
  const known = new Set(readRestoreRecords(doc).map((r) => r.clientId))
  const count = (): number => doc.getMap(RESTORES_ROOT).size
  let seen = count()
  return () => {
    const now = count()
    if (now === seen) return undefined
    seen = now
    const fresh = readRestoreRecords(doc).filter((r) => !known.has(r.clientId))
    for (const r of fresh) known.add(r.clientId)
    return fresh[0]
  }
}

/** Client id → restored version's time, for the restores `doc` records. */
export function restoredFrom(doc: Y.Doc): Map<number, number> {
  return new Map(readRestoreRecords(doc).map((r) => [r.clientId, r.versionAt]))
}
