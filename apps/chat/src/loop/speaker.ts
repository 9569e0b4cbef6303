/**
 * Everything the loop says: redacted posts to the group (mirrored to consoles), short answers to
 * one origin, and receipts (reactions on a phone message, statuses on a console line).
 */
import type { ConsolePort } from '../console/console-port.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { ChatSignal } from '../signal/port.ts'
import type { Observe } from './chat-events.ts'
import type { DaemonHealth } from '../signal/daemon-health.ts'
import type { LoopContext } from './loop-context.ts'
import type { Origin, Queued } from './origin.ts'
import type { PostedFile, PostOptions, PostResult, Poster } from './poster.ts'
import { advanceReceipt, RECEIPT_EMOJI, type ReceiptState } from './receipts.ts'

/** `life` stops background posts; `onError` hears of a failed background post or reaction. */
export interface SpeakerOptions extends LoopContext {
  signal: ChatSignal
  groupId: string
  health: DaemonHealth
  redactor: Redactor
  poster: Poster
  console: ConsolePort | undefined
  observe: Observe
  /** A background notice that cannot be posted for this long is dropped (logged): they must not pile up. */
  noticeStallMs: number
}

export interface Speaker {
  /** Tells the group and every console; `text` is redacted here. */
  say(text: string, abort: AbortSignal, turn?: number, options?: PostOptions): Promise<PostResult>
  /** Posts one short `text` (redacted here) with `file` (already redacted) by the delivery rule; consoles get the text. */
  sendFile(text: string, file: PostedFile, abort: AbortSignal, options?: PostOptions): Promise<PostResult>
  /** Posts a short notice to the group in the background (redacted, bounded in time); failures go to `onError`. */
  tellGroup(text: string): void
  /** Answers one origin only: the group for phones, the console line for a console. */
  answer(origin: Origin, text: string): void
  /** Moves the item's receipt on and shows it; a failed reaction goes to `onError`. */
  setReceipt(item: Queued, to: ReceiptState): Promise<void>
  /** Sets a reaction on a phone message outside the receipt steps (a reply reported failed after a restart). */
  react(target: { author: string; timestamp: number }, to: ReceiptState): Promise<void>
}

export function createSpeaker(o: SpeakerOptions): Speaker {
  const tellGroup = (text: string): void => {
    void o.redactor
      .redact(text)
      .then((clean) => o.poster.post(clean, o.life, { stallMs: o.noticeStallMs }))
      .then((result) => {
        if (result.kind === 'stalled')
          o.log(
            `a notice to the group was dropped after ${Math.round(o.noticeStallMs / 1000)} s withheld (${result.reason})`,
          )
      })
      .catch((err: unknown) => o.onError('post', err))
  }
  return {
    async say(text, abort, turn, options) {
      const clean = await o.redactor.redact(text)
      o.console?.emit({ kind: 'chat-reply', text: clean, turn })
      return o.poster.post(clean, abort, options)
    },
    async sendFile(text, file, abort, options) {
      const clean = await o.redactor.redact(text)
      o.console?.emit({ kind: 'chat-reply', text: clean, turn: undefined })
      return o.poster.postFile(clean, file, abort, options)
    },
    async react(target, to) {
      await o.health.call('sendReaction', () => o.signal.react(o.groupId, target, RECEIPT_EMOJI[to]), o.life)
      await o.observe({ type: 'receipt', target: target.timestamp, state: to })
    },
    tellGroup,
    answer(origin, text) {
      if (origin.kind === 'signal') return tellGroup(text)
      void o.redactor
        .redact(text)
        .then((clean) => o.console?.emit({ kind: 'chat-status', ref: origin.ref, state: 'info', text: clean }))
    },
    async setReceipt(item, to) {
      item.receipt = advanceReceipt(item.receipt, to)
      const origin = item.origin
      if (origin.kind === 'console') {
        o.console?.emit({ kind: 'chat-status', ref: origin.ref, state: to })
        await o.observe({ type: 'receipt', target: origin.ref, state: to })
        return
      }
      try {
        await o.health.call(
          'sendReaction',
          () => o.signal.react(o.groupId, { author: origin.author, timestamp: origin.timestamp }, RECEIPT_EMOJI[to]),
          o.life,
        )
        await o.observe({ type: 'receipt', target: origin.timestamp, state: to })
      } catch (err) {
        o.onError('reaction', err)
      }
    },
  }
}
