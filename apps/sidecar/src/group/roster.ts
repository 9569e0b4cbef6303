/**
 * Who is in a document's group and what each member's sidecar said it reads (its `health`
 * announcement, contract §3.12). The sidecar puts a form on Signal that an older member could not
 * read (deflated payloads, attachment references) only when every current member other than its
 * own account announced that it reads it; a member that never announced reads plain text only.
 * Members are the group's listed members plus anyone seen sending e2e-col bodies there.
 * @see docs/sidecar.md §4.10
 */
import { canRead, type Capabilities } from '@e2e-col/protocol'

/** A Signal account as the daemon names it: by ACI, by number, or both. */
export interface MemberId {
  readonly uuid?: string | undefined
  readonly number?: string | undefined
}

export interface Roster {
  /** Replaces the listed members (from `listGroups`). */
  setMembers(members: readonly MemberId[]): void
  /** A member's announcement: what it reads (undefined: nothing beyond plain text). */
  announced(from: MemberId, capabilities: Capabilities | undefined): void
  /** A member sent an e2e-col body in the group (it counts as a member from now on). */
  seen(from: MemberId): void
  /** True when every current member other than this account announced every bit of `features`. */
  allRead(features: number): boolean
  /** Whether this member has announced anything since this sidecar started. */
  hasAnnounced(from: MemberId): boolean
}

// Bounds: a group has at most ~1000 members on Signal; senders seen beyond the list are capped too.
const MAX_SEEN = 1024
const MAX_ANNOUNCED = 4096

const keysOf = (m: MemberId): string[] => [
  ...(m.uuid === undefined || m.uuid === '' ? [] : [`u:${m.uuid.toLowerCase()}`]),
  ...(m.number === undefined || m.number === '' ? [] : [`n:${m.number}`]),
]

export function createRoster(self: MemberId): Roster {
  const selfKeys = new Set(keysOf(self))
  let listed: MemberId[] = []
  const seen = new Map<string, MemberId>()
  const caps = new Map<string, Capabilities | undefined>()
  const isSelf = (m: MemberId): boolean => keysOf(m).some((k) => selfKeys.has(k))
  const capsOf = (m: MemberId): Capabilities | undefined => {
    for (const k of keysOf(m)) if (caps.has(k)) return caps.get(k)
    return undefined
  }
  const remember = (m: MemberId): void => {
    const keys = keysOf(m)
    if (keys.length === 0 || isSelf(m) || keys.some((k) => seen.has(k))) return
    if (listed.some((l) => keysOf(l).some((k) => keys.includes(k)))) return
    if (seen.size >= MAX_SEEN) seen.delete(seen.keys().next().value as string)
    seen.set(keys[0] as string, m)
  }
  return {
    setMembers(members) {
      listed = members.filter((m) => keysOf(m).length > 0)
      // A seen sender now listed is tracked by the list.
      for (const [k, m] of seen) if (listed.some((l) => keysOf(l).some((x) => keysOf(m).includes(x)))) seen.delete(k)
    },
    announced(from, capabilities) {
      if (isSelf(from)) return
      for (const k of keysOf(from)) {
        caps.delete(k)
        if (caps.size >= MAX_ANNOUNCED) caps.delete(caps.keys().next().value as string)
        caps.set(k, capabilities)
      }
      remember(from)
    },
    seen: remember,
    allRead(features) {
      const others = [...listed.filter((m) => !isSelf(m)), ...seen.values()]
      return others.every((m) => canRead(capsOf(m), features))
    },
    hasAnnounced: (from) => keysOf(from).some((k) => caps.has(k)),
  }
}
