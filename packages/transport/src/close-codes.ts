/**
 * WebSocket close codes the sidecar uses towards browsers (docs/contract.md, browser WebSocket).
 * Only {@link CLOSE_CODES.HISTORY_AT_RISK} changes client behaviour; every other code reconnects.
 */
export const CLOSE_CODES = {
  NORMAL: 1000,
  /** The sidecar is shutting down. */
  GOING_AWAY: 1001,
  /** A send to Signal failed ambiguously: keep the outbox and replay it with the same message ids. */
  AMBIGUOUS_SEND_FAILURE: 1011,
  /** History at risk: the client must send its full state as a `snapshot`. */
  HISTORY_AT_RISK: 4409,
} as const
