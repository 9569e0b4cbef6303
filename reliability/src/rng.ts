/** A seeded PRNG (mulberry32, the one the unit tests use): every soak run is reproducible from its seed. */
export type Rng = () => number

export { seededRandom as seededRng } from '@e2e-col/sync/testing'

export const pick = <T>(rng: Rng, items: readonly T[]): T => {
  const item = items[Math.floor(rng() * items.length)]
  if (item === undefined) throw new Error('pick from an empty list')
  return item
}
