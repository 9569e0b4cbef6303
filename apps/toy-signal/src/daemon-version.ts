/**
 * The signal-cli version the toy plays. Answers that changed between releases (listGroups'
 * `isAdmin`, `send`'s `noUrgent`, `getAttachment` without an id, contacts' `isArchived`) follow it,
 * so the toy can stand in for the real 0.13.19 of the contract suite or for a 0.14.x daemon.
 * @see reference `signal-cli-wire.md` §8 (what changed when)
 */

/** The default: signal-cli's 0.14.x line, marked so nobody mistakes it for a real daemon. */
export const TOY_VERSION = '0.14.6-toy'

const VERSION = /^(\d{1,4})\.(\d{1,4})\.(\d{1,4})(?:[-+.][0-9A-Za-z.+-]{0,64})?$/

/** A played version: the text `version` answers, and comparisons against release numbers. */
export interface PlayedVersion {
  readonly text: string
  /** True when the played version is `wanted` (`0.14.1`) or later. */
  atLeast(wanted: string): boolean
}

function numbers(version: string): [number, number, number] | undefined {
  const m = VERSION.exec(version)
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])]
}

/** Whether `text` is a version the toy can play: `MAJOR.MINOR.PATCH`, an optional suffix (`-toy`). */
export function isPlayableVersion(text: string): boolean {
  return numbers(text) !== undefined
}

/** @throws Error when `text` is not playable (callers check {@link isPlayableVersion} at the edge). */
export function playedVersion(text: string): PlayedVersion {
  const have = numbers(text)
  if (have === undefined) throw new Error(`not a signal-cli version: ${JSON.stringify(text)}`)
  return {
    text,
    atLeast(wanted) {
      const want = numbers(wanted)
      if (want === undefined) throw new Error(`not a signal-cli version: ${JSON.stringify(wanted)}`)
      for (let i = 0; i < 3; i += 1) if (have[i] !== want[i]) return (have[i] ?? 0) > (want[i] ?? 0)
      return true
    },
  }
}
