/**
 * How a person is named wherever the sidecar shows one (home page, invitations, share box, CLI,
 * history): the one rule that tells people apart. A name anyone can pick (a Signal profile name)
 * or a name someone else also has is never shown alone:
 * - a contact whose name is theirs alone: "Frank";
 * - a contact named like someone else: "Frank (…0142)", the number's tail;
 * - anyone else: "Frank (not in your contacts, …0142)";
 * - no name: the number.
 * Names are compared as people read them (Unicode compatibility forms, case and spacing folded),
 * so "Frank" and "ＦＲＡＮＫ " collide. Names reach here already made safe to show (shown-names.ts).
 * Pure.
 * @see docs/documents.md "People", docs/reliability.md "Threat model"
 */
import { foldName } from '@e2e-col/protocol'
import type { SafetyState } from '@e2e-col/signal-cli'

/** What the account knows of one person. */
export interface Known {
  readonly number: string
  /** Their contact name, else their profile name; undefined when neither is set. */
  readonly name: string | undefined
  /** The account gave them a name (a contact record), rather than only seeing their profile name. */
  readonly inContacts: boolean
  /** Signal's safety-number state, when the daemon said. */
  readonly safety?: SafetyState | undefined
}

/** A person as shown: what the API adds to a number. */
export interface Told {
  /** The name to show, with a hint when the name alone could mislead. */
  readonly shown: string
  readonly inContacts: boolean
  /** Present when the daemon said; `changed` is a warning. */
  readonly safety?: SafetyState
}

const TAIL_DIGITS = 4

const tailOf = (number: string): string => `…${number.slice(-TAIL_DIGITS)}`

/** Who is named how: `directory` is everyone the account knows (the collisions are looked for there). */
export interface TellApart {
  /** A person as shown; someone the directory does not hold is shown as not in your contacts. */
  tell(number: string, nameIfUnknown?: string): Told
  /** The plain name the directory holds for someone (no hint). */
  name(number: string): string | undefined
  /** The numbers of the people whose folded name is `name` (contacts and not). */
  named(name: string): string[]
}

export function tellApart(directory: Iterable<Known>): TellApart {
  const byNumber = new Map<string, Known>()
  const byName = new Map<string, string[]>()
  for (const k of directory) {
    if (byNumber.has(k.number)) continue
    byNumber.set(k.number, k)
    if (k.name === undefined) continue
    const key = foldName(k.name)
    if (key === '') continue
    byName.set(key, [...(byName.get(key) ?? []), k.number])
  }
  function tell(number: string, nameIfUnknown?: string): Told {
    const k = byNumber.get(number) ?? { number, name: nameIfUnknown, inContacts: false }
    const safety = k.safety === undefined ? {} : { safety: k.safety }
    const name = k.name === undefined || foldName(k.name) === '' ? undefined : k.name
    if (name === undefined) return { shown: number, inContacts: k.inContacts, ...safety }
    const same = byName.get(foldName(name)) ?? [number]
    // Two people with the same tail: the whole number tells them apart.
    const tail = same.some((n) => n !== number && n.endsWith(number.slice(-TAIL_DIGITS))) ? number : tailOf(number)
    const hint = !k.inContacts ? `not in your contacts, ${tail}` : same.length > 1 ? tail : undefined
    return { shown: hint === undefined ? name : `${name} (${hint})`, inContacts: k.inContacts, ...safety }
  }
  return {
    tell,
    name: (number) => byNumber.get(number)?.name,
    named: (name) => byName.get(foldName(name)) ?? [],
  }
}
