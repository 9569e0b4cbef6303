/**
 * What one document's pages are told about their changes, as `delivery` envelopes: Signal's state
 * as this sidecar sees it (reachable, unreachable, daemon down, or refused for this document), how
 * many accepted changes Signal has not taken yet, and which ids it just took. A page shows the
 * weakest state that applies ("3 changes saved by your sidecar, not yet sent: Signal is unreachable
 * since 10:42"). Notes are coalesced: at most one per document per turn of the event loop.
 * @see docs/sidecar.md §4.3
 */
import { encodeDeliveryNote, encodeEnvelope, MAX_SENT_IDS, type DeliveryNote } from '@e2e-col/protocol'
import type { Reachability } from './reachability.ts'
import type { DocRole } from '@e2e-col/protocol'

/** What delivery needs of a page's session (browser/session.ts): a frame sent to it. */
export interface PageLink {
  send(frame: Uint8Array): void
}

export interface Delivery {
  /** Signal accepted this change: its outbox row goes and the pages are told. */
  sent(messageId: string): void
  /** Signal definitely refused a change of this document (the reason is the daemon's, masked). */
  refused(reason: string): void
  /** Something the note shows changed (a change accepted, Signal's state): tell the pages. */
  changed(): void
  /** Tells one new page where things stand. */
  greet(session: PageLink): void
  /** The note as it would be sent now (for /healthz and tests). */
  note(): DeliveryNote
}

export interface DeliveryOptions {
  docId: string
  sidecarId: string
  sessions: ReadonlySet<PageLink>
  reach: Pick<Reachability, 'state' | 'since'>
  now: () => number
  newMessageId: () => string
  /** Accepted changes Signal has not taken (the outbox's rows). */
  unsent: () => number
  /** Deletes the outbox rows of ids Signal took. */
  forget: (messageIds: readonly string[]) => void
  /** This account's role in the document, carried by every note (absent: no role said). */
  role?: () => DocRole
  /** This account's author tag, carried by every note (docs/decisions/0023). */
  author?: number
}

export function createDelivery(o: DeliveryOptions): Delivery {
  let refusal: { since: number; reason: string } | undefined
  const justSent: string[] = []
  let scheduled = false

  const note = (sent: readonly string[]): DeliveryNote => {
    const role = {
      ...(o.role === undefined ? {} : { role: o.role() }),
      ...(o.author === undefined ? {} : { author: o.author }),
    }
    if (refusal !== undefined)
      return { signal: 'refused', since: refusal.since, unsent: o.unsent(), sent, reason: refusal.reason, ...role }
    return { signal: o.reach.state, since: o.reach.since, unsent: o.unsent(), sent, ...role }
  }
  const frame = (n: DeliveryNote): Uint8Array =>
    encodeEnvelope({
      kind: 'delivery',
      flags: 0,
      docId: o.docId,
      senderId: o.sidecarId,
      messageId: o.newMessageId(),
      seq: 0,
      payload: encodeDeliveryNote(n),
    })

  function flush(): void {
    scheduled = false
    if (justSent.length > 0) {
      o.forget(justSent)
      // A send went through after a refusal: whatever was refused is no longer what blocks.
      refusal = undefined
    }
    do {
      const sent = justSent.splice(0, MAX_SENT_IDS)
      if (o.sessions.size === 0) continue
      const bytes = frame(note(sent))
      for (const s of o.sessions) s.send(bytes)
    } while (justSent.length > 0)
  }
  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    queueMicrotask(flush)
  }

  return {
    sent(messageId) {
      justSent.push(messageId)
      schedule()
    },
    refused(reason) {
      refusal = { since: o.now(), reason }
      schedule()
    },
    changed: schedule,
    greet: (session) => session.send(frame(note([]))),
    note: () => note([]),
  }
}
