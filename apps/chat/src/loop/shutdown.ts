/**
 * Ending a chat, once, whoever asks first (an operator's stop, a local signal, a lost daemon):
 * stop taking turns, kill and reap the running one, mark what was waiting cancelled, optionally say
 * goodbye and leave the group, tell the consoles. `finished` resolves to the exit code after that.
 */
import type { ConsolePort } from '../console/console-port.ts'
import { EXIT_CODES, type ExitCode } from '../exit-codes.ts'
import type { ChatSignal } from '../signal/port.ts'
import type { Observe } from './chat-events.ts'
import type { Inbox } from './inbox.ts'
import { checkMembership } from './membership.ts'
import type { Queued } from './origin.ts'
import { advanceReceipt, isFinalReceipt, RECEIPT_EMOJI } from './receipts.ts'
import type { TurnWorker } from './turn-worker.ts'

export interface ShutdownOptions {
  /** Aborted first: everything that runs for the chat stops on it. */
  life: AbortController
  inbox: Inbox
  worker: TurnWorker
  signal: ChatSignal
  groupId: string
  /** Who may be in the group when the goodbye is posted. */
  allowed: ReadonlySet<string>
  console: ConsolePort | undefined
  observe: Observe
  log(line: string): void
}

export interface Shutdown {
  /** Ends the chat (idempotent: the first call decides the code); resolves once it has ended. */
  end(code: ExitCode, why: string | undefined, options?: { leave?: boolean }): Promise<void>
  readonly finished: Promise<ExitCode>
}

export function createShutdown(o: ShutdownOptions): Shutdown {
  let finish: ((code: ExitCode) => void) | undefined
  const finished = new Promise<ExitCode>((resolve) => (finish = resolve))
  let ending: Promise<void> | undefined

  async function cancelReceipts(items: readonly Queued[]): Promise<void> {
    for (const item of items) {
      if (item.receipt === undefined || isFinalReceipt(item.receipt)) continue
      item.receipt = advanceReceipt(item.receipt, 'cancelled')
      const origin = item.origin
      if (origin.kind === 'console') o.console?.emit({ kind: 'chat-status', ref: origin.ref, state: 'cancelled' })
      else {
        const reacted = await o.signal
          .react(o.groupId, { author: origin.author, timestamp: origin.timestamp }, RECEIPT_EMOJI.cancelled)
          .then(
            () => true,
            () => false,
          )
        if (reacted) await o.observe({ type: 'receipt', target: origin.timestamp, state: 'cancelled' })
      }
    }
  }

  async function leave(): Promise<void> {
    try {
      if (checkMembership(await o.signal.groupMembership(o.groupId), o.allowed).ok) {
        await o.signal.sendGroup(o.groupId, 'stopped: the agent is killed and this chat is over. Bye.')
      }
      await o.signal.quitGroup(o.groupId)
      o.log('left the group')
    } catch (err) {
      o.log(`could not leave the group cleanly: ${(err as Error).message}`)
    }
  }

  async function settle(code: ExitCode, why: string | undefined, options: { leave?: boolean }): Promise<void> {
    if (why !== undefined) o.log(why)
    const current = o.worker.running?.item
    const waiting = o.inbox.drain() as Queued[]
    o.life.abort()
    // The runner kills the tree on abort; wait until it is reaped before going on.
    await o.worker.settled()
    if (code !== EXIT_CODES.daemonLost) await cancelReceipts([...(current === undefined ? [] : [current]), ...waiting])
    if (options.leave === true) await leave()
    o.console?.emit({ kind: 'chat-status', ref: undefined, state: 'info', text: 'the chat has ended' })
  }

  return {
    end(code, why, options = {}) {
      ending ??= settle(code, why, options)
        .catch((err: unknown) => o.log(`shutdown incomplete: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => finish?.(code))
      return ending
    },
    finished,
  }
}
