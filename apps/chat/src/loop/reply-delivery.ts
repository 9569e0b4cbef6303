/**
 * Delivering one turn's report: the receipt says ✅/❌ only once the whole report is in the group.
 * A reply that makes no progress for the delivery timeout is saved on disk and the group is told it
 * failed (❌) as soon as a post gets through; a reply the chat ends on (a local stop, a lost daemon)
 * is saved the same way and reported at the next start. `cancel` stops the rest of a reply.
 */
import type { ChatConfig } from '../config.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { AuditLog } from '../state/audit-log.ts'
import type { ChatState } from '../state/chat-state.ts'
import { clearUndelivered, saveUndelivered, undeliveredText, type Undelivered } from '../state/undelivered.ts'
import type { LoopContext } from './loop-context.ts'
import { formatDuration } from './messages.ts'
import { auditSource, type Queued } from './origin.ts'
import type { PostResult } from './poster.ts'
import type { Speaker } from './speaker.ts'

/** Where the turn in progress is. */
export type TurnPhase =
  | { kind: 'running' }
  | { kind: 'posting'; posted: number; total: number }
  | { kind: 'held'; reason: string; posted: number; total: number }

export interface ReplyDeliveryOptions extends LoopContext {
  config: ChatConfig
  state: ChatState
  speaker: Speaker
  redactor: Redactor
  audit: AuditLog
}

export interface ReplyDelivery {
  /** Delivers `text` (the turn's report) by the rule above; `abort` is the operator's cancel. */
  deliver(
    item: Queued | undefined,
    turn: number,
    text: string,
    receipt: 'done' | 'failed' | 'cancelled',
    abort: AbortSignal,
    onPhase: (phase: TurnPhase) => void,
  ): Promise<void>
  /** Tells the group about replies an earlier run could not deliver, oldest first. */
  reportEarlier(): Promise<void>
  /** Records a turn's outcome in the audit log. */
  auditTurn(item: Queued | undefined, turn: number, outcome: string): Promise<void>
}

export function createReplyDelivery(o: ReplyDeliveryOptions): ReplyDelivery {
  const { config, state, speaker } = o
  const root = config.stateRoot

  function auditTurn(item: Queued | undefined, turn: number, outcome: string): Promise<void> {
    return o.audit.record({ event: 'turn', ...auditSource(item?.origin), sessionId: state.sessionId, turn, outcome })
  }

  /** Posts the notice of a reply given up (retrying without a deadline) and marks its message ❌. */
  async function reportUndelivered(u: Undelivered, item: Queued | undefined): Promise<void> {
    const result = await speaker.say(undeliveredText(u, config.host), o.life, u.turn)
    if (result.kind !== 'posted') return
    clearUndelivered(root, state, u.turn)
    if (item !== undefined) await speaker.setReceipt(item, 'failed')
    else if (u.target !== undefined)
      await speaker.react(u.target, 'failed').catch((err: unknown) => o.onError('reaction', err))
  }

  function saveReply(
    item: Queued | undefined,
    turn: number,
    text: string,
    result: PostResult | undefined,
    why: string,
  ): Undelivered {
    const posted = result === undefined || result.kind === 'posted' ? 0 : result.posted
    const total = result?.total ?? 0
    const origin = item?.origin
    const target = origin?.kind === 'signal' ? { author: origin.author, timestamp: origin.timestamp } : undefined
    const u = saveUndelivered(root, state, {
      turn,
      text,
      posted,
      total,
      why,
      ...(target === undefined ? {} : { target }),
    })
    o.log(`turn ${turn}: reply not delivered (${why}); saved in ${u.file}`)
    return u
  }

  return {
    auditTurn,
    async reportEarlier() {
      // clearUndelivered replaces the list, so this loop walks the one read here.
      for (const u of state.undelivered ?? []) {
        if (o.life.aborted) return
        o.log(`turn ${u.turn}: telling the group its reply was not delivered`)
        await reportUndelivered(u, undefined)
      }
    },
    async deliver(item, turn, text, receipt, abort, onPhase) {
      const progress = {
        onPart: (posted: number, total: number) => onPhase({ kind: 'posting', posted, total }),
        onHeld: (reason: string, posted: number, total: number) => onPhase({ kind: 'held', reason, posted, total }),
      }
      onPhase({ kind: 'posting', posted: 0, total: 0 })
      const clean = await o.redactor.redact(text)
      let result: PostResult
      try {
        // A cancelled turn's notice is posted even though its own abort signal fired.
        result = await speaker.say(clean, receipt === 'cancelled' ? o.life : abort, turn, {
          progress,
          stallMs: config.deliveryTimeoutMs,
          lead: true,
        })
      } catch (err) {
        saveReply(item, turn, clean, undefined, 'the daemon was lost')
        throw err
      }
      if (result.kind === 'posted') {
        if (item !== undefined) await speaker.setReceipt(item, receipt)
        await auditTurn(item, turn, receipt)
        return
      }
      if (result.kind === 'aborted') {
        if (o.life.aborted) {
          saveReply(item, turn, clean, result, 'the chat stopped while it was posted')
          await auditTurn(item, turn, 'undelivered: the chat stopped')
          return
        }
        await speaker.say(
          `turn ${turn}: the rest of the reply is cancelled (${result.posted} of ${result.total} part(s) posted).`,
          o.life,
          turn,
        )
        if (item !== undefined) await speaker.setReceipt(item, 'cancelled')
        await auditTurn(item, turn, `reply cancelled after ${result.posted} of ${result.total} part(s)`)
        return
      }
      const u = saveReply(
        item,
        turn,
        clean,
        result,
        `nothing could be posted for ${formatDuration(config.deliveryTimeoutMs)}: ${result.reason}`,
      )
      await auditTurn(item, turn, `undelivered: ${result.reason}`)
      await reportUndelivered(u, item)
    },
  }
}
