/** `@e2e-col/sync/testing`: hand-driven timers, a seeded PRNG and hostile updates for unit tests. */
export { manualTimers, seededRandom, seededStream } from './manual-timers.ts'
export { repeatedSections } from './repeated-sections.ts'
