/**
 * WebSocket close codes between a browser and its sidecar: the one table both ends read
 * (docs/sidecar.md §4.7, docs/daemon-contract.md §6.7). Only {@link CLOSE_CODES.HISTORY_AT_RISK},
 * {@link CLOSE_CODES.AMBIGUOUS_SEND_FAILURE} and {@link CLOSE_CODES.ORIGIN_NOT_ALLOWED} (no reconnect)
 * change client behaviour; every other code reconnects.
 */
export const CLOSE_CODES = {
  NORMAL: 1000,
  /** The sidecar is shutting down. */
  GOING_AWAY: 1001,
  /** A text frame: only binary frames are accepted. */
  UNSUPPORTED_DATA: 1003,
  /** Too many refused frames on one connection. */
  POLICY_VIOLATION: 1008,
  /** A frame larger than the sidecar accepts. */
  TOO_BIG: 1009,
  /** A send to Signal failed ambiguously: keep the outbox and replay it with the same message ids. */
  AMBIGUOUS_SEND_FAILURE: 1011,
  /** The browser reads too slowly. */
  TRY_AGAIN_LATER: 1013,
  /**
   * The page's origin is not allowed by the sidecar (`E2E_COL_ALLOWED_ORIGINS`); the reason names
   * it. Sent on a socket accepted only to say so (a page cannot read an HTTP refusal of a
   * WebSocket upgrade); clients do not reconnect after it.
   */
  ORIGIN_NOT_ALLOWED: 4403,
  /** History at risk: the client must send its full state as a `snapshot`. */
  HISTORY_AT_RISK: 4409,
} as const

export type CloseCode = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES]
