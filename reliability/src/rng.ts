/** A seeded PRNG (mulberry32, the one the unit tests use): every soak run is reproducible from its seed. */
export type Rng = () => number

export { seededRandom as seededRng } from '@e2e-col/sync/testing'

/** FNV-1a of a text, to mix names into seeds. */
function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/**
 * The generator of one consumer of a run (`'incidents'`, `'faults'`, `'author-0'`, ...): each
 * consumer's numbers depend on the seed and on its own draws only, never on when another one drew
 * (the sidecars' timing decides that).
 */
export function seededStream(seed: number, purpose: string): Rng {
  return seededRng(hash32(`${seed}:${purpose}`))
}

export const pick = <T>(rng: Rng, items: readonly T[]): T => {
  const item = items[Math.floor(rng() * items.length)]
  if (item === undefined) throw new Error('pick from an empty list')
  return item
}
