/**
 * The chat's audit log: one JSON line per accepted prompt, control phrase and turn outcome, in the
 * state folder beside the chat's state (`<stem>.audit.jsonl`, 0600 in the 0700 chats directory).
 * Who drove the agent and what came of it, kept after the group is gone. Texts are redacted like
 * replies and numbers masked like log lines before they are written; the loop awaits each record
 * before it goes on, so a prompt's line is on disk before its turn starts.
 */
import { appendFileSync, chmodSync } from 'node:fs'
import { maskPhone } from '../redact/local-log.ts'
import type { Redactor } from '../redact/redactor.ts'
import { chatStem } from './chat-state.ts'

/** One audit record as the loop hands it over (raw: the log masks and redacts). */
export interface AuditEntry {
  event: 'prompt' | 'control' | 'turn'
  /** E.164 of a phone, or `console` / `topic`. */
  sender: string
  device: number | undefined
  /** The message's Signal sent timestamp (its id), for phone messages. */
  signalTimestamp: number | undefined
  sessionId: string
  /** The turn it ran as, runs as, or (control phrases) the turn running at the time. */
  turn: number | undefined
  /** e.g. `queued`, `refused: queue full`, `status answered`, `done`, `failed`, `cancelled`, `undelivered`. */
  outcome: string
  /** The prompt or phrase as sent (redacted here). */
  text?: string | undefined
}

export interface AuditLog {
  readonly path: string
  record(entry: AuditEntry): Promise<void>
}

/** Longest text kept per record; what is cut is counted in the record. */
export const MAX_AUDIT_TEXT_CHARS = 16_000

export function createAuditLog(
  root: string,
  groupId: string,
  redactor: Redactor,
  now: () => Date = () => new Date(),
): AuditLog {
  const path = `${chatStem(root, groupId)}.audit.jsonl`
  let created = false
  let queue = Promise.resolve()
  return {
    path,
    record(entry) {
      const at = now().toISOString()
      // Serialized, so lines keep the order the loop recorded them in despite async redaction.
      queue = queue.then(async () => {
        let text: string | undefined
        let cut = 0
        if (entry.text !== undefined) {
          const clean = await redactor.redact(entry.text)
          text = clean.slice(0, MAX_AUDIT_TEXT_CHARS)
          cut = clean.length - text.length
        }
        const sender = entry.sender.startsWith('+') ? maskPhone(entry.sender) : entry.sender
        const line = {
          at,
          event: entry.event,
          sender,
          device: entry.device ?? null,
          signalTimestamp: entry.signalTimestamp ?? null,
          sessionId: entry.sessionId,
          turn: entry.turn ?? null,
          outcome: redactor.redactSync(entry.outcome),
          ...(text === undefined ? {} : { text }),
          ...(cut > 0 ? { textCutChars: cut } : {}),
        }
        appendFileSync(path, `${JSON.stringify(line)}\n`, { mode: 0o600 })
        if (!created) {
          chmodSync(path, 0o600)
          created = true
        }
      })
      return queue
    },
  }
}
