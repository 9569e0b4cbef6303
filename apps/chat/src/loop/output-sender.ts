/**
 * `output [turn]`: a turn's saved output (redacted when saved, and again here) goes to the group as
 * a text file, by the delivery rule. Bounded: at most `maxBytes` of it (its start; the caption says
 * where the whole is) and one such file in flight at a time, so one message causes one upload.
 */
import type { Redactor } from '../redact/redactor.ts'
import { findSavedOutput, readSavedOutput, type SavedOutput } from '../state/saved-output.ts'
import type { LoopContext } from './loop-context.ts'
import type { Origin } from './origin.ts'
import type { Speaker } from './speaker.ts'

export interface OutputSenderOptions extends LoopContext {
  root: string
  groupId: string
  host: string
  /** Largest attachment sent (`--max-attachment-bytes`). */
  maxBytes: number
  redactor: Redactor
  speaker: Speaker
  /** A file that cannot be posted for this long is given up (the operator is told). */
  stallMs: number
}

export interface OutputSender {
  /** Starts sending the saved output asked for, answering `origin` at once when there is none; resolves to the audit outcome. */
  request(origin: Origin, turn: number | undefined): string
  /** Resolves once no file is being sent. */
  settled(): Promise<void>
}

export function createOutputSender(o: OutputSenderOptions): OutputSender {
  let sending: Promise<void> | undefined

  async function send(saved: SavedOutput): Promise<void> {
    const { data, whole } = await readSavedOutput(saved, o.maxBytes, o.redactor)
    const caption = whole
      ? `turn ${saved.turn}: its whole output (redacted, ${data.length} bytes) is attached.`
      : `turn ${saved.turn}: the first ${data.length} bytes of its output (redacted) are attached, the most one file may carry; all ${saved.bytes} bytes are on ${o.host} in ${saved.file}.`
    const name = `turn-${saved.turn}-output.txt`
    const result = await o.speaker.sendFile(caption, { name, contentType: 'text/plain', data }, o.life, {
      stallMs: o.stallMs,
    })
    if (result.kind === 'posted') {
      o.log(`turn ${saved.turn}: its output (${data.length} bytes) is in the group`)
      return
    }
    if (result.kind === 'stalled') {
      o.log(`turn ${saved.turn}: its output could not be sent (${result.reason})`)
      o.speaker.tellGroup(
        `turn ${saved.turn}: its output file could not be sent (${result.reason}); it is on ${o.host} in ${saved.file}.`,
      )
    }
  }

  return {
    request(origin, turn) {
      if (sending !== undefined) {
        o.speaker.answer(origin, 'an output file is being sent already: ask again once it is in.')
        return 'refused: an output file is being sent'
      }
      const saved = findSavedOutput(o.root, o.groupId, turn)
      if (saved === undefined) {
        o.speaker.answer(
          origin,
          turn === undefined
            ? 'no saved output: only a reply too long to post saves one.'
            : `turn ${turn} has no saved output: only a reply too long to post saves one.`,
        )
        return 'no saved output'
      }
      sending = send(saved)
        .catch((err: unknown) => o.onError('output', err))
        .finally(() => {
          sending = undefined
        })
      return `sending the output of turn ${saved.turn} (${saved.bytes} bytes saved)`
    },
    settled: () => sending ?? Promise.resolve(),
  }
}
