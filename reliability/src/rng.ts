/** A seeded PRNG (mulberry32, the one the unit tests use): every soak run is reproducible from its seed. */
export type Rng = () => number

export { seededRandom as seededRng } from '@e2e-col/sync/testing'
/**
 * The generator of one consumer of a run (`'incidents'`, `'faults'`, `'author-0'`, ...): each
 * consumer's numbers depend on the seed and on its own draws only, never on when another one drew
 * (the sidecars' timing decides that).
 */
export { seededStream } from '@e2e-col/sync/testing'

export const pick = <T>(rng: Rng, items: readonly T[]): T => {
  const item = items[Math.floor(rng() * items.length)]
  if (item === undefined) throw new Error('pick from an empty list')
  return item
}
