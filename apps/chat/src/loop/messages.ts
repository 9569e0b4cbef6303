/** The texts the loop posts. Pure; the caller redacts before posting. */
import { CONTROL_PHRASES_HELP } from '../control.ts'

/** Facts shown in the announcement. */
export interface AnnouncementFacts {
  host: string
  topic: string
  agent: string
  sessionId: string
  allowlist: readonly string[]
  inboxCapacity: number
  resumedAtTurn?: number | undefined
  /** Turns of this chat an earlier process left running, killed at this start. */
  leftovers?: readonly number[] | undefined
}

export function announcement(f: AnnouncementFacts): string {
  const head =
    f.resumedAtTurn === undefined
      ? `e2e-col chat started on ${f.host}.`
      : `e2e-col chat resumed on ${f.host}: same agent session, continuing after turn ${f.resumedAtTurn}.`
  const leftovers = (f.leftovers ?? []).map(
    (t) => `turn ${t} was left running by an earlier e2e-col process that died; it is killed now.`,
  )
  return [
    head,
    ...leftovers,
    `topic: ${f.topic}`,
    `agent: ${f.agent}, session ${f.sessionId}`,
    `allowed tools (what a message here can make the agent do): ${f.allowlist.join(', ')}`,
    `each message is the next prompt, one turn at a time; up to ${f.inboxCapacity} wait in the queue.`,
    `control: ${CONTROL_PHRASES_HELP}.`,
  ].join('\n')
}

/** Compact duration: 45s, 3m05s, 1h02m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}

/** Facts shown by `status`. */
export interface StatusFacts {
  sessionId: string
  turn: number
  running:
    | {
        turn: number
        elapsedMs: number
        outputBytes: number
        phase:
          | { kind: 'running' }
          | { kind: 'posting'; posted: number; total: number }
          | { kind: 'held'; reason: string; posted: number; total: number }
      }
    | undefined
  allowlist: readonly string[]
  queued: number
  capacity: number
  membership: { agoMs: number; ok: boolean } | undefined
  /** Where the audit log is. */
  auditLog: string
}

function turnState(r: NonNullable<StatusFacts['running']>): string {
  const p = r.phase
  if (p.kind === 'running')
    return `turn ${r.turn} running for ${formatDuration(r.elapsedMs)} (${r.outputBytes} bytes of output so far)`
  const parts = p.total === 0 ? 'preparing its reply' : `${p.posted} of ${p.total} part(s) posted`
  if (p.kind === 'posting')
    return `turn ${r.turn} finished (${r.outputBytes} bytes of output); posting its reply: ${parts}`
  return `turn ${r.turn} finished (${r.outputBytes} bytes of output); its reply is held (${p.reason}): ${parts}`
}

export function statusText(f: StatusFacts): string {
  const state = f.running === undefined ? 'idle' : turnState(f.running)
  const check =
    f.membership === undefined
      ? 'not yet'
      : `${formatDuration(f.membership.agoMs)} ago, ${f.membership.ok ? 'ok' : 'FAILED: posting withheld'}`
  return [
    `status: ${state}`,
    `session ${f.sessionId}, ${f.turn} turn(s) so far`,
    `allowed tools: ${f.allowlist.join(', ')}`,
    `queue: ${f.queued}/${f.capacity}`,
    `last membership check: ${check}`,
    `audit log: ${f.auditLog}`,
  ].join('\n')
}

/** The short failure notice of a turn; `tail` is already redacted and bounded. */
export function failureText(turn: number, how: string, tail: string): string {
  const body = tail.trim() === '' ? '(no output)' : tail.trimEnd()
  return `turn ${turn} failed: ${how}. The chat goes on; the next message resumes the same session.\nlast output:\n${body}`
}

/** The last `maxBytes` UTF-8 bytes of `text`, cut at a code point boundary. */
export function lastBytes(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= maxBytes) return text
  let start = bytes.length - maxBytes
  while (start < bytes.length && ((bytes[start] as number) & 0xc0) === 0x80) start++
  return `…${new TextDecoder().decode(bytes.subarray(start))}`
}
