/** `@e2e-col/sync/testing`: hand-driven timers and a seeded PRNG for unit tests. */
export { manualTimers, seededRandom, seededStream } from './manual-timers.ts'
