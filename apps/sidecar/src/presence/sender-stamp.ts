/**
 * Who sent a member's presence, as Signal says: every state in an awareness payload from the group
 * gets a `signal` field naming the Signal account that sent it, as this person's contacts tell
 * them apart (people/told-apart.ts), and its `user.name` (what carets and the "is here" line
 * show, in y-codemirror and y-prosemirror too) becomes that name: the name the other page picked
 * for itself, which anyone can set to "Alice", is kept as `user.pickedName`. A `signal` field the
 * sender wrote is replaced, never trusted. Removals (null states) stay as they are. Pure.
 * @see docs/reliability.md §5
 */
import { modifyAwarenessUpdate } from 'y-protocols/awareness'
import type { MemberId } from '../group/roster.ts'

/** What a page learns of a presence state's sender. */
export interface SenderStamp {
  /** The Signal account that sent it. */
  readonly number: string
  /** Its name as shown to this person ("Bob", "Bob (…0102)", "Bob (not in your contacts, …0166)", or the number). */
  readonly shown: string
}

const isRecord = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x)

/** `payload` with every state stamped with `sender`; undefined when it is not an awareness update. */
export function stampSender(payload: Uint8Array, sender: SenderStamp): Uint8Array | undefined {
  try {
    return modifyAwarenessUpdate(payload, (state: unknown) => {
      if (!isRecord(state)) return state
      const user = isRecord(state['user'])
        ? { user: { ...state['user'], pickedName: state['user']['name'], name: sender.shown } }
        : {}
      return { ...state, ...user, signal: { number: sender.number, shown: sender.shown } }
    })
  } catch {
    return undefined // malformed: the mirror refuses it too
  }
}

/**
 * The group inbox's stamp: a member's awareness stamped with its sender's shown name (the number
 * when the contacts do not name them) and framed for the pages; undefined when the sender has no
 * visible number or the payload is malformed (it then goes on as it came).
 */
export function createSenderStamper(
  shownName: ((number: string) => string | undefined) | undefined,
  frame: (payload: Uint8Array) => Uint8Array,
): (payload: Uint8Array, from: MemberId | undefined) => { payload: Uint8Array; frame: Uint8Array } | undefined {
  return (payload, from) => {
    const number = from?.number
    if (number === undefined) return undefined
    const stamped = stampSender(payload, { number, shown: shownName?.(number) ?? number })
    return stamped === undefined ? undefined : { payload: stamped, frame: frame(stamped) }
  }
}
