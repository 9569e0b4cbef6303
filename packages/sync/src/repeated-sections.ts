/**
 * For tests: one Yjs v1 update that lists the same client twice, as Yjs never writes one (applying
 * it keeps only the last section), built from two single-section updates with empty delete sets.
 */
export function repeatedSections(first: Uint8Array, second: Uint8Array): Uint8Array {
  for (const u of [first, second])
    if (u[0] !== 1 || u.at(-1) !== 0) throw new Error('each update must be one client section and no deletions')
  return Uint8Array.from([2, ...first.subarray(1, -1), ...second.subarray(1, -1), 0])
}
