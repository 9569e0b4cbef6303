/** What the group is told after a turn: the redacted reply, or a short redacted failure. */
import type { TurnResult } from '../agent/turn-runner.ts'
import type { Redactor } from '../redact/redactor.ts'
import { failureText, formatDuration, lastBytes } from './messages.ts'

/** Bytes of output tail quoted in a failure message (after redaction). */
export const FAILURE_TAIL_BYTES = 1200

export interface TurnReport {
  receipt: 'done' | 'failed' | 'cancelled'
  /** Redacted text to post. */
  text: string
}

/** Redacts first, then bounds: a cut can never split a secret into two unmasked halves. */
export async function reportTurn(
  result: TurnResult,
  turn: number,
  redactor: Redactor,
  turnTimeoutMs: number | undefined,
  host: string,
): Promise<TurnReport> {
  if (result.outcome === 'cancelled') return { receipt: 'cancelled', text: `turn ${turn} cancelled; the chat goes on.` }
  if (result.outcome === 'ok') {
    const cut =
      result.droppedStdoutBytes === 0
        ? ''
        : result.spilledTo === undefined
          ? `\n[… ${result.droppedStdoutBytes} more bytes of output could not be kept (the output file could not be written)]`
          : result.unkeptBytes === 0
            ? `\n[… ${result.droppedStdoutBytes} more bytes of output are too long to post: the whole output (redacted) is saved on ${host} in ${result.spilledTo}; send "output" to get it here as a file]`
            : `\n[… ${result.droppedStdoutBytes} more bytes of output are too long to post: the output (redacted) is saved on ${host} in ${result.spilledTo}, except its last ${result.unkeptBytes} bytes (the file stops at its size bound); send "output" to get it here as a file]`
    const reply = (await redactor.redact(result.stdout)) + cut
    return { receipt: 'done', text: reply.trim() === '' ? `turn ${turn}: (no output)` : reply }
  }
  const how =
    result.outcome === 'timeout'
      ? `killed after the turn timeout (${formatDuration(turnTimeoutMs ?? 0)})`
      : result.spawnError !== undefined
        ? `the agent could not start (${result.spawnError})`
        : result.signal !== null
          ? `the agent was killed by ${result.signal}`
          : `the agent exited with status ${result.exitCode}`
  const tail = lastBytes(await redactor.redact(result.tail), FAILURE_TAIL_BYTES)
  return { receipt: 'failed', text: await redactor.redact(failureText(turn, how, tail)) }
}
