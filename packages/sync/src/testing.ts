/** `@e2e-col/sync/testing`: hand-driven timers and a seeded PRNG for unit tests. */
export { manualTimers, seededRandom } from './manual-timers.ts'
