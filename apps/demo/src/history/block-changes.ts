/**
 * Which blocks of a rich-text version differ from the document now: the blocks of both, each
 * compared whole (its kind, text and formatting), matched by their longest common subsequence;
 * every block of the version outside it is marked (a restore brings it back or changes it).
 */

/** Most blocks compared one by one; past it every block counts as changed (the table is n × m). */
export const MAX_COMPARED_BLOCKS = 2000

/** For each block of `version`, true when the document `now` has no matching block in order. */
export function changedBlocks(now: readonly string[], version: readonly string[]): boolean[] {
  const n = version.length
  const m = now.length
  if (n > MAX_COMPARED_BLOCKS || m > MAX_COMPARED_BLOCKS) return version.map(() => true)
  // lcs[i][j]: the longest common subsequence of version[i..] and now[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as Uint16Array
    const next = lcs[i + 1] as Uint16Array
    for (let j = m - 1; j >= 0; j--)
      row[j] = version[i] === now[j] ? (next[j + 1] ?? 0) + 1 : Math.max(next[j] ?? 0, row[j + 1] ?? 0)
  }
  const changed = version.map(() => true)
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (version[i] === now[j]) {
      changed[i] = false
      i++
      j++
    } else if ((lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0)) i++
    else j++
  }
  return changed
}
