/**
 * The browser pages attached to one document: they join when their socket opens and leave when
 * it closes, so a document can be added or removed while the sidecar runs.
 */
import type { Session } from '../browser/session.ts'

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
