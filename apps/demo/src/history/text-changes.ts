/**
 * What a text preview marks: the version's text, with the runs it has and the document now lacks
 * (a restore brings them back) and the places where the document now has text the version lacks
 * (a restore removes it). Diffed by diff-match-patch, cleaned up to whole words for reading.
 */
import DiffMatchPatch from 'diff-match-patch'

export interface TextChanges {
  /** The version's text, as the preview shows it. */
  readonly text: string
  /** Runs [from, to) of `text` the document now lacks. */
  readonly back: readonly { readonly from: number; readonly to: number }[]
  /** Text the document has now and the version lacks, shown at offset `at` of `text`. */
  readonly gone: readonly { readonly at: number; readonly text: string }[]
}

/** Bounds the diff on a long text: a coarser diff after this long is still a correct one. */
const DIFF_TIMEOUT_S = 0.3

/** The differences between the document `now` and the `version`, seen from the version. */
export function textChanges(now: string, version: string): TextChanges {
  const dmp = new DiffMatchPatch()
  dmp.Diff_Timeout = DIFF_TIMEOUT_S
  const diffs = dmp.diff_main(now, version)
  dmp.diff_cleanupSemantic(diffs)
  const back: { from: number; to: number }[] = []
  const gone: { at: number; text: string }[] = []
  let at = 0
  for (const [op, run] of diffs) {
    if (op === 1) back.push({ from: at, to: at + run.length })
    else if (op === -1) gone.push({ at, text: run })
    if (op !== -1) at += run.length
  }
  return { text: version, back, gone }
}
