/**
 * Approval from the phone (issue #40, decision 0039). The sidecar is a linked device of the
 * person's own number, so a Note to Self it sends shows on their phone, and what they type into
 * Note to Self there reaches it as a sync message. When an agent token writes suggestions, they
 * are collected per document and agent; once that agent has been quiet for `quietMs`, ONE urgent
 * Note to Self lists them, numbered. That list is the open batch: a reply "accept 1", "reject 2",
 * "accept all" (commands.ts) decides its items through the same code as the HTTP accept and reject
 * (an editor's decision under this account), and a receipt Note to Self says what was done and
 * what was refused. Any other Note to Self is the person's own and ignored.
 *
 * Bounds ({@link APPROVAL_LIMITS}): one open batch, the latest list sent (numbers refer to it; an
 * older list is forgotten); at most `itemsPerBatch` items in it (the rest are counted "more on the
 * page"); at most `pendingKeys` documents × agents collecting at once; `commandsPerMinute` commands
 * taken a minute (past it a command is ignored and logged, with no receipt). The open batch is kept
 * across restarts (kept-batch.ts), written before its list is sent; the suggestions still
 * collecting are in memory only. Nothing is logged of what the person typed, nor a number or a token.
 */
import { listSuggestions, ReviewError } from '@e2e-col/review'
import type { Timers } from '@e2e-col/sync'
import type { Logger } from '../ops/logger.ts'
import { ApiFailure, copy, decideSuggestion, type ReviewedDoc } from '../review/api-common.ts'
import type { AgentSuggestion } from '../review/api.ts'
import { createEntryRate } from '../review/entry-rate.ts'
import { parseApprovalCommand, type ApprovalCommand } from './commands.ts'
import { decodeBatch, encodeBatch, type BatchFile, type KeptBatch } from './kept-batch.ts'
import {
  listText,
  NOTHING_WAITING,
  notEditorText,
  notServedText,
  receiptText,
  type ListedItem,
  type Refusal,
} from './messages.ts'

export const APPROVAL_LIMITS = {
  /** How long an agent stays quiet before its suggestions are listed, ms. */
  quietMs: 2_000,
  /** Items one list numbers. */
  itemsPerBatch: 20,
  /** Documents × agents collecting suggestions at once; a new one past it is not listed (logged). */
  pendingKeys: 64,
  /** Commands taken at once, and regained a minute. */
  commandsPerMinute: 20,
  /** The sidecar's own recent Note-to-Self texts, recognised when they come back as sync messages. */
  ownTexts: 16,
} as const

export interface ApprovalPorts {
  /** Sends `text` to this account's Note to Self (urgent: the phone notifies). */
  sendNoteToSelf(text: string): Promise<void>
  /** The document's title as this sidecar lists it. */
  titleOf(docId: string): Promise<string | undefined>
  /** The served document as the review API sees it; undefined when no longer served. */
  reviewed(docId: string): ReviewedDoc | undefined
  timers: Timers
  /** Where the open batch is kept across restarts; absent: in memory only. */
  kept?: BatchFile
  /** Overrides {@link APPROVAL_LIMITS}.quietMs (tests). */
  quietMs?: number
  logger: Logger
}

export interface Approvals {
  /** An agent token's suggestion just written. */
  suggested(s: AgentSuggestion): void
  /** A Note to Self from another device of the account. */
  noteToSelf(e: { body: string }): void
  /** Resolves once every list and reply taken so far is handled (tests). */
  settled(): Promise<void>
  close(): void
}

interface Item extends ListedItem {
  readonly id: string
}
type Batch = KeptBatch
interface Pending {
  readonly docId: string
  readonly agent: string
  readonly items: Item[]
  more: number
  timer: unknown
}

/** An error's code, and its cause's (the file system's, under a StoreError) when it has one. */
const errorCode = (error: unknown): unknown => {
  const { code, cause } = error as { code?: unknown; cause?: { code?: unknown } }
  return cause?.code === undefined ? (code ?? 'error') : `${String(code)} (${String(cause.code)})`
}

/** Decides one item of the batch; a refusal when it is not. */
function decideOne(
  d: ReviewedDoc,
  n: number,
  item: Item,
  verb: ApprovalCommand['verb'],
  at: number,
): Refusal | undefined {
  const now = listSuggestions(copy(d.doc)).find((s) => s.id === item.id)
  if (now !== undefined && now.status !== 'open') return { n, why: 'decided', status: now.status }
  if (now?.stale === true && verb === 'accept') return { n, why: 'stale' }
  try {
    decideSuggestion(d, item.id, verb, at)
    return undefined
  } catch (error) {
    if (error instanceof ReviewError && error.code === 'SUGGESTION_QUOTE_CHANGED') return { n, why: 'stale' }
    if (error instanceof ReviewError && error.code === 'SUGGESTION_DECIDED')
      return { n, why: 'decided', status: 'decided' }
    if (error instanceof ReviewError || error instanceof ApiFailure) return { n, why: 'failed' }
    throw error
  }
}

/** What a command does to the batch, and the receipt it answers with. */
function applyCommand(batch: Batch, d: ReviewedDoc, cmd: ApprovalCommand, at: number) {
  const numbers = cmd.items === 'all' ? batch.items.map((_, i) => i + 1) : cmd.items
  const refusals: Refusal[] = []
  let done = 0
  for (const n of numbers) {
    const item = batch.items[n - 1]
    const refused =
      item === undefined
        ? { n, why: 'absent' as const, count: batch.items.length }
        : decideOne(d, n, item, cmd.verb, at)
    if (refused === undefined) done += 1
    else refusals.push(refused)
  }
  return { done, text: receiptText({ verb: cmd.verb, title: batch.title, done, of: numbers.length, refusals }) }
}

/** The batch a previous run left open, if its file holds one. */
function readKept(p: ApprovalPorts): Batch | undefined {
  try {
    const text = p.kept?.read()
    const batch = text === undefined ? undefined : decodeBatch(text, APPROVAL_LIMITS.itemsPerBatch)
    if (text !== undefined && batch === undefined)
      p.logger.warn('approval from the phone: the kept list does not read; replies wait for the next list')
    return batch
  } catch (error) {
    p.logger.warn({ error: errorCode(error) }, 'approval from the phone: the kept list cannot be read')
    return undefined
  }
}

/** Keeps `batch` for the next run before its list goes out; a failure only costs that. */
function keep(p: ApprovalPorts, batch: Batch): void {
  try {
    p.kept?.write(encodeBatch(batch))
  } catch (error) {
    p.logger.warn({ error: errorCode(error) }, 'approval from the phone: the list is not kept across a restart')
  }
}

export function createApprovals(p: ApprovalPorts): Approvals {
  const quietMs = p.quietMs ?? APPROVAL_LIMITS.quietMs
  const pending = new Map<string, Pending>()
  const rate = createEntryRate({
    burst: APPROVAL_LIMITS.commandsPerMinute,
    perMinute: APPROVAL_LIMITS.commandsPerMinute,
    members: 1,
  })
  const own: string[] = []
  let latest = readKept(p)
  let closed = false
  // Lists and replies one at a time, in order: a reply acts on the list sent before it.
  let chain: Promise<void> = Promise.resolve()
  const run = (step: () => Promise<void>) => {
    chain = chain
      .then(step)
      .catch((error: unknown) => p.logger.warn({ error: errorCode(error) }, 'approval from the phone: a step failed'))
  }
  const send = async (text: string, what: string) => {
    own.push(text)
    if (own.length > APPROVAL_LIMITS.ownTexts) own.shift()
    await p
      .sendNoteToSelf(text)
      .catch((error: unknown) =>
        p.logger.warn({ error: errorCode(error) }, `approval from the phone: the ${what} was not sent`),
      )
  }

  const list = (key: string) => {
    const batch = pending.get(key)
    if (batch === undefined || closed) return
    pending.delete(key)
    run(async () => {
      const title = await p.titleOf(batch.docId).catch(() => undefined)
      latest = { docId: batch.docId, title, items: batch.items }
      keep(p, latest)
      p.logger.info({ docId: batch.docId, items: batch.items.length }, 'approval from the phone: suggestions listed')
      await send(listText({ agent: batch.agent, title, items: batch.items, more: batch.more }), 'list')
    })
  }

  const reply = async (cmd: ApprovalCommand) => {
    const batch = latest
    if (batch === undefined) return send(NOTHING_WAITING, 'receipt')
    const d = p.reviewed(batch.docId)
    if (d === undefined) return send(notServedText(batch.title), 'receipt')
    if (d.role() !== 'editor') return send(notEditorText(batch.title), 'receipt')
    const { done, text } = applyCommand(batch, d, cmd, p.timers.now())
    p.logger.info({ docId: batch.docId, verb: cmd.verb, done }, 'approval from the phone: a reply applied')
    return send(text, 'receipt')
  }

  return {
    suggested(s) {
      if (closed) return
      const key = `${s.docId}\u0000${s.agent}`
      let batch = pending.get(key)
      if (batch === undefined) {
        if (pending.size >= APPROVAL_LIMITS.pendingKeys) {
          p.logger.warn({ docId: s.docId }, 'approval from the phone: too many lists collecting; not listed')
          return
        }
        batch = { docId: s.docId, agent: s.agent, items: [], more: 0, timer: undefined }
        pending.set(key, batch)
      }
      const item = { id: s.id, find: s.find, replace: s.replace, note: s.note }
      if (batch.items.length < APPROVAL_LIMITS.itemsPerBatch) batch.items.push(item)
      else batch.more += 1
      p.timers.clearTimeout(batch.timer)
      batch.timer = p.timers.setTimeout(() => list(key), quietMs)
    },
    noteToSelf(e) {
      // Our own lists and receipts come back as sync messages: never commands, never counted.
      if (closed || own.includes(e.body)) return
      const cmd = parseApprovalCommand(e.body)
      if (cmd === undefined) return
      if (!rate.take('all', 1, p.timers.now())) {
        p.logger.warn('approval from the phone: commands over the rate; ignored')
        return
      }
      run(() => reply(cmd))
    },
    settled: () => chain,
    close() {
      closed = true
      for (const batch of pending.values()) p.timers.clearTimeout(batch.timer)
      pending.clear()
    },
  }
}
