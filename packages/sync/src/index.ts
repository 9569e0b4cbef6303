/** `@e2e-col/sync`: the sync rule both ends of a group follow, and the time seam it runs on. */
export { AnswerCoverage, OBSERVE_BUDGET, observeAll, prepareAnswer, type PreparedAnswer } from './answer-coverage.ts'
export { SyncResponder, type SyncResponderOptions, type SyncResponderStats } from './sync-responder.ts'
export { systemTimers, type Timers } from './timers.ts'
export { decodeSections, type DecodedSections } from './update-sections.ts'
