/**
 * The mention messages of decision 0038: "@Bob" in a comment or reply this sidecar writes sends Bob
 * one urgent 1:1 Signal message from this account, so his phone rings. Only the writer's sidecar
 * sends (a received comment never makes a sidecar send), once per comment and person. The text
 * names the document's title, the quoted range and the body, cut to a few lines; never the
 * document id, a port or anything secret. Bounded: at most `perPerson` messages to one person a
 * minute and `perSidecar` in all, past which a mention is not messaged (the comment is written all
 * the same). Sent in the background: the comment's answer says how many went out to be sent.
 */
import type { Logger } from '../ops/logger.ts'
import type { Commented } from './comment-routes.ts'
import { createEntryRate } from './entry-rate.ts'

export const MENTION_LIMITS = {
  /** Messages to one person: at once, and regained a minute. */
  perPerson: 5,
  /** Messages in all, every document and person together: at once, and regained a minute. */
  perSidecar: 30,
  /** People remembered by the per-person rate (the least recently messaged is forgotten). */
  people: 256,
  /** Characters of the quote, and of the body, a message carries. */
  quoteChars: 120,
  bodyChars: 400,
  /** Characters of the title. */
  titleChars: 80,
} as const

export interface MentionPorts {
  /** Sends `text` to `recipient` alone, urgent (their phone notifies). */
  send(recipient: string, text: string): Promise<void>
  /** The document's title as this sidecar lists it. */
  titleOf(docId: string): Promise<string | undefined>
  now(): number
  logger: Logger
}

/** `text` on one line (runs of white space as one space), at most `max` characters with an ellipsis. */
function clip(text: string, max: number, oneLine: boolean): string {
  const flat = oneLine ? text.replace(/\s+/g, ' ').trim() : text.trim()
  const chars = [...flat]
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`
}

/** The message a mentioned person reads. Pure. */
export function mentionText(m: { title?: string; quote: string; body: string; agent?: string }): string {
  const who = m.agent === undefined ? 'Mentioned you' : `${clip(m.agent, 64, true)} (an agent) mentioned you`
  const where =
    m.title === undefined || m.title.trim() === ''
      ? 'a document'
      : `“${clip(m.title, MENTION_LIMITS.titleChars, true)}”`
  const quote = m.quote.trim() === '' ? '' : `\n“${clip(m.quote, MENTION_LIMITS.quoteChars, true)}”`
  return `${who} in ${where}:${quote}\n${clip(m.body, MENTION_LIMITS.bodyChars, false)}`
}

/** The `mentioned` port of the comment routes: how many messages were taken to be sent. */
export function createMentionMessages(p: MentionPorts): (c: Commented & { agent?: string }) => Promise<number> {
  const rate = { perMinute: 0, members: MENTION_LIMITS.people }
  const perPerson = createEntryRate({ ...rate, burst: MENTION_LIMITS.perPerson, perMinute: MENTION_LIMITS.perPerson })
  const all = createEntryRate({ ...rate, burst: MENTION_LIMITS.perSidecar, perMinute: MENTION_LIMITS.perSidecar })
  return async (c) => {
    const now = p.now()
    const to = c.numbers.filter((n) => all.take('all', 1, now) && perPerson.take(n, 1, now))
    if (to.length < c.numbers.length)
      p.logger.warn(
        { docId: c.docId, skipped: c.numbers.length - to.length },
        'mention messages over the rate: not sent',
      )
    if (to.length === 0) return 0
    const title = await p.titleOf(c.docId).catch(() => undefined)
    const text = mentionText({
      ...(title === undefined ? {} : { title }),
      quote: c.quote,
      body: c.body,
      ...(c.agent === undefined ? {} : { agent: c.agent }),
    })
    for (const n of to)
      p.send(n, text).catch((error: unknown) =>
        p.logger.warn(
          { docId: c.docId, error: (error as { code?: unknown }).code ?? 'send failed' },
          'a mention message was not sent',
        ),
      )
    return to.length
  }
}
