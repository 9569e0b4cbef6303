/**
 * The browser pages attached to one document: they join when their socket opens and leave when
 * it closes, so a document can be added or removed while the sidecar runs.
 */
import type { Envelope } from '@e2e-col/protocol'
import type { Session } from '../browser/session.ts'

/** What the rest of the sidecar asks of a document's pages (`doc.pages`). */
export interface PageSide {
  /** Browser sessions attached now. */
  readonly count: number
  /** Attaches a browser session; it stays until `detach` (its socket closed) or the document closes. */
  attach(session: Session): void
  detach(session: Session): void
  /** An envelope a local browser sent (already checked by its session). */
  receive(session: Session, env: Envelope, frame: Uint8Array): void
  /** Closes every page's socket with `code` (the document goes on). */
  close(code: number, reason: string): void
}

export interface Pages {
  /** The sessions attached now (the delivery notes go to each). */
  readonly sessions: ReadonlySet<Session>
  add(session: Session): void
  remove(session: Session): void
  /** A frame for every page. */
  toAll(frame: Uint8Array): void
  /** A frame for every page but the one it came from. */
  toOthers(from: Session, frame: Uint8Array): void
  /** Closes every page's socket with `code`. */
  close(code: number, reason: string): void
}

export function createPages(): Pages {
  const sessions = new Set<Session>()
  return {
    sessions,
    add: (session) => void sessions.add(session),
    remove: (session) => void sessions.delete(session),
    toAll(frame) {
      for (const s of sessions) s.send(frame)
    },
    toOthers(from, frame) {
      for (const s of sessions) if (s !== from) s.send(frame)
    },
    close(code, reason) {
      for (const s of sessions) s.close(code, reason)
    },
  }
}
