/**
 * Comments: anchored to a range by relative positions, so they follow concurrent edits; replies
 * share their thread's anchor; resolve and reopen are entries of their own (the latest wins). A
 * comment whose range was deleted is orphaned and shown with the quote it was made on: never lost.
 */
import type * as Y from 'yjs'
import { anchorOf, resolveAnchor } from './anchors.ts'
import { ReviewError } from './errors.ts'
import { REVIEW_LIMITS } from './limits.ts'
import {
  newEntryId,
  parseComment,
  parseKey,
  parseResolution,
  reviewMap,
  utf8Bytes,
  writerOf,
  type CommentEntry,
  type Target,
} from './structure.ts'
import { extractOrThrow } from './suggestions.ts'
import { nodeText, segmentOf } from './text-target.ts'
import { sameWriter } from './writers.ts'

export interface CommentInput {
  readonly target: Target
  /** The range in the target's plain text (offsets of `readText`). */
  readonly index: number
  readonly length: number
  readonly body: string
  /** Numbers mentioned (from `parseMentions`). */
  readonly mentions?: readonly string[]
  /** The program acting for the writer ("Claude"), 1 to `maxLabelBytes` bytes. */
  readonly agent?: string
  readonly at: number
  readonly random: () => number
}

export interface Comment {
  readonly id: string
  readonly writer: number
  readonly entry: CommentEntry
  /** The text the range reads now; '' when orphaned. */
  readonly current: string
  /** Its whole range was deleted: shown with `entry.quote`. */
  readonly orphaned: boolean
  readonly replies: readonly { id: string; writer: number; entry: CommentEntry }[]
  readonly resolved: boolean
  /** The latest resolve or reopen: its writer and time. */
  readonly resolution?: { readonly by: number; readonly at: number; readonly resolved: boolean }
}

function checkBody(body: unknown): string {
  if (typeof body !== 'string' || body.trim() === '') throw new ReviewError('REVIEW_BAD_INPUT', 'a comment has a body')
  if (utf8Bytes(body) > REVIEW_LIMITS.maxNoteBytes)
    throw new ReviewError('REVIEW_TOO_LARGE', `a comment is at most ${REVIEW_LIMITS.maxNoteBytes} bytes`)
  return body
}

function checkAgent(agent: string | undefined): { agent?: string } {
  if (agent === undefined) return {}
  if (agent === '' || utf8Bytes(agent) > REVIEW_LIMITS.maxLabelBytes)
    throw new ReviewError('REVIEW_BAD_INPUT', `an agent label is 1 to ${REVIEW_LIMITS.maxLabelBytes} bytes`)
  return { agent }
}

function countMine(doc: Y.Doc): number {
  const map = reviewMap(doc)
  let n = 0
  for (const key of map.keys()) {
    const w = writerOf(map, key)
    if (parseKey(key)?.kind === 'comment' && w !== undefined && sameWriter(w, doc.clientID)) n += 1
  }
  return n
}

function write(doc: Y.Doc, entry: CommentEntry, random: () => number): string {
  if (countMine(doc) >= REVIEW_LIMITS.maxCommentsPerWriter)
    throw new ReviewError('REVIEW_TOO_MANY', `at most ${REVIEW_LIMITS.maxCommentsPerWriter} comments per member`)
  const id = newEntryId(random)
  reviewMap(doc).set(`c:${id}`, entry)
  return id
}

/** @throws ReviewError REVIEW_BAD_INPUT (range outside the text or across blocks), REVIEW_TOO_LARGE, REVIEW_TOO_MANY */
export function addComment(doc: Y.Doc, input: CommentInput): string {
  const body = checkBody(input.body)
  const agent = checkAgent(input.agent)
  const { segments } = extractOrThrow(doc, input.target)
  const { index, length } = input
  const seg =
    Number.isSafeInteger(index) && Number.isSafeInteger(length) && length > 0
      ? segmentOf(segments, index, length)
      : undefined
  if (seg === undefined) throw new ReviewError('REVIEW_BAD_INPUT', 'the range is not within one block of the text')
  const quote = seg.text.slice(index - seg.from, index - seg.from + length)
  if (utf8Bytes(quote) > REVIEW_LIMITS.maxQuoteBytes)
    throw new ReviewError('REVIEW_TOO_LARGE', `a commented range is at most ${REVIEW_LIMITS.maxQuoteBytes} bytes`)
  const mentions = (input.mentions ?? []).slice(0, REVIEW_LIMITS.maxMentions)
  const anchor = anchorOf(seg.node, index - seg.from, length)
  const entry: CommentEntry = { v: 1, target: input.target, anchor, quote, body, mentions, ...agent, at: input.at }
  return write(doc, entry, input.random)
}

/** A reply in `commentId`'s thread. */
export function replyTo(
  doc: Y.Doc,
  commentId: string,
  reply: { body: string; mentions?: readonly string[]; agent?: string; at: number; random: () => number },
): string {
  const root = parseComment(reviewMap(doc).get(`c:${commentId}`))
  if (root === undefined || root.replyTo !== undefined)
    throw new ReviewError('REVIEW_NOT_FOUND', `no comment ${commentId}`)
  const body = checkBody(reply.body)
  const agent = checkAgent(reply.agent)
  if (repliesTo(doc, commentId) >= REVIEW_LIMITS.maxRepliesPerThread)
    throw new ReviewError('REVIEW_TOO_MANY', `a thread takes at most ${REVIEW_LIMITS.maxRepliesPerThread} replies`)
  const mentions = (reply.mentions ?? []).slice(0, REVIEW_LIMITS.maxMentions)
  const { target, anchor, quote } = root
  const entry: CommentEntry = {
    v: 1,
    target,
    anchor,
    quote,
    body,
    mentions,
    ...agent,
    replyTo: commentId,
    at: reply.at,
  }
  return write(doc, entry, reply.random)
}

function repliesTo(doc: Y.Doc, commentId: string): number {
  let n = 0
  for (const [key, value] of reviewMap(doc).entries())
    if (parseKey(key)?.kind === 'comment' && parseComment(value)?.replyTo === commentId) n += 1
  return n
}

/** Resolves (or reopens) a thread: a new entry, the latest by time wins. */
export function resolveComment(
  doc: Y.Doc,
  commentId: string,
  resolved: boolean,
  at: number,
  random: () => number,
): void {
  if (parseComment(reviewMap(doc).get(`c:${commentId}`)) === undefined)
    throw new ReviewError('REVIEW_NOT_FOUND', `no comment ${commentId}`)
  reviewMap(doc).set(`r:${commentId}:${newEntryId(random)}`, { v: 1, resolved, at })
}

const byTime = <T extends { id: string; entry: { at: number } }>(a: T, b: T): number =>
  a.entry.at - b.entry.at || a.id.localeCompare(b.id)

function whereNow(doc: Y.Doc, entry: CommentEntry): string | undefined {
  let segments
  try {
    segments = extractOrThrow(doc, entry.target).segments
  } catch {
    return undefined
  }
  for (const { node } of segments) {
    const r = resolveAnchor(doc, node, entry.anchor)
    if (r !== undefined) return nodeText(node).plain.slice(r.index, r.index + r.len)
  }
  return undefined
}

/** Every thread, oldest first, with its replies, resolution and whether it is orphaned. */
export function listComments(doc: Y.Doc): Comment[] {
  const map = reviewMap(doc)
  const roots = new Map<string, { id: string; writer: number; entry: CommentEntry }>()
  const replies = new Map<string, { id: string; writer: number; entry: CommentEntry }[]>()
  const resolutions = new Map<string, { at: number; key: string; resolved: boolean; by: number }>()
  for (const [key, value] of map.entries()) {
    const k = parseKey(key)
    const writer = writerOf(map, key)
    if (k === undefined || writer === undefined) continue
    if (k.kind === 'resolution' && k.of !== undefined) {
      const r = parseResolution(value)
      const was = resolutions.get(k.of)
      if (r !== undefined && (was === undefined || r.at > was.at || (r.at === was.at && key > was.key)))
        resolutions.set(k.of, { at: r.at, key, resolved: r.resolved, by: writer })
    }
    const entry = k.kind === 'comment' ? parseComment(value) : undefined
    if (entry === undefined) continue
    if (entry.replyTo === undefined) roots.set(k.id, { id: k.id, writer, entry })
    else {
      const thread = replies.get(entry.replyTo) ?? []
      thread.push({ id: k.id, writer, entry })
      replies.set(entry.replyTo, thread)
    }
  }
  return [...roots.values()].sort(byTime).map((c) => {
    const current = whereNow(doc, c.entry) ?? ''
    const r = resolutions.get(c.id)
    return {
      ...c,
      current,
      orphaned: current === '',
      // A thread past its bound (a hostile member's flood) shows its oldest replies only.
      replies: (replies.get(c.id) ?? []).sort(byTime).slice(0, REVIEW_LIMITS.maxRepliesPerThread),
      resolved: r?.resolved ?? false,
      ...(r === undefined ? {} : { resolution: { by: r.by, at: r.at, resolved: r.resolved } }),
    }
  })
}
