/**
 * What an accepted message does, the same path for phones and consoles: a control phrase is
 * answered at once (status, cancel, output, stop); anything else queues for the turn worker, or is
 * refused when the queue is full. Every outcome goes to the audit log.
 */
import type { ConsolePort } from '../console/console-port.ts'
import { parseControl, type ControlAction } from '../control.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { AuditEntry, AuditLog } from '../state/audit-log.ts'
import type { Inbox } from './inbox.ts'
import { auditSource, type Origin, type Queued } from './origin.ts'
import type { OutputSender } from './output-sender.ts'
import type { Speaker } from './speaker.ts'
import type { TurnWorker } from './turn-worker.ts'

export interface AcceptorOptions {
  sessionId: string
  inbox: Inbox
  worker: Pick<TurnWorker, 'running' | 'cancel' | 'wake'>
  speaker: Pick<Speaker, 'answer' | 'tellGroup' | 'setReceipt'>
  outputs: Pick<OutputSender, 'request'>
  audit: Pick<AuditLog, 'record'>
  redactor: Redactor
  console: ConsolePort | undefined
  /** The status answer, as of now. */
  status(): string
  /** An operator's stop phrase: ends the chat and leaves the group. */
  stopChat(): void
  log(line: string): void
}

type Prompt = Extract<ControlAction, { kind: 'prompt' }>

/** The handler of accepted text; resolves once its outcome is recorded and shown. */
export function createAcceptor(o: AcceptorOptions): (text: string, origin: Origin) => Promise<void> {
  function record(
    origin: Origin,
    event: AuditEntry['event'],
    text: string,
    turn: number | undefined,
    outcome: string,
  ): Promise<void> {
    return o.audit.record({ event, ...auditSource(origin), sessionId: o.sessionId, turn, outcome, text })
  }

  async function control(action: Exclude<ControlAction, Prompt>, text: string, origin: Origin): Promise<void> {
    const runningTurn = o.worker.running?.turn
    if (action.kind === 'status') {
      await record(origin, 'control', text, runningTurn, 'status answered')
      return o.speaker.answer(origin, o.status())
    }
    if (action.kind === 'cancel') {
      const phase = o.worker.running?.phase.kind
      const cancelled = o.worker.cancel()
      await record(
        origin,
        'control',
        text,
        runningTurn,
        !cancelled ? 'nothing to cancel' : phase === 'running' ? 'turn cancelled' : 'rest of the reply cancelled',
      )
      if (!cancelled) o.speaker.answer(origin, 'nothing is running.')
      return
    }
    if (action.kind === 'output') {
      await record(origin, 'control', text, runningTurn, o.outputs.request(origin, action.turn))
      return
    }
    await record(origin, 'control', text, runningTurn, 'chat ended')
    o.log(`${action.phrase} from an operator: ending the chat`)
    o.stopChat()
  }

  function refuseFull(origin: Origin): void {
    o.log('queue full: a message was not taken')
    const capacity = o.inbox.capacity
    if (origin.kind === 'console')
      o.console?.emit({
        kind: 'chat-status',
        ref: origin.ref,
        state: 'rejected',
        text: `queue full (${capacity} waiting), message not taken`,
      })
    else o.speaker.answer(origin, `queue full (${capacity} waiting), message not taken: send it again later.`)
  }

  async function enqueue(action: Prompt, origin: Origin): Promise<void> {
    const item: Queued = {
      text: action.text,
      author: origin.kind === 'signal' ? origin.author : 'console',
      timestamp: origin.kind === 'signal' ? origin.timestamp : 0,
      origin,
      receipt: undefined,
    }
    const offer = o.inbox.offer(item)
    await record(
      origin,
      'prompt',
      action.text,
      undefined,
      offer.taken ? `queued (position ${offer.position})` : 'refused: queue full',
    )
    if (!offer.taken) return refuseFull(origin)
    o.console?.emit({
      kind: 'chat-prompt',
      text: await o.redactor.redact(action.text),
      from: origin.kind === 'signal' ? 'phone' : 'console',
      ref: origin.kind === 'signal' ? String(origin.timestamp) : origin.ref,
    })
    if (origin.kind === 'console') o.speaker.tellGroup(`[console] ${action.text}`)
    await o.speaker.setReceipt(item, 'queued')
    o.worker.wake()
  }

  return (text, origin) => {
    const action = parseControl(text)
    return action.kind === 'prompt' ? enqueue(action, origin) : control(action, text, origin)
  }
}
