/**
 * The kind table and flag bits of ProtocolEnvelope v1. Codes are wire constants: never renumber one,
 * only add. See docs/protocol.md §3.3 and §3.4.
 */

/**
 * Every envelope kind with its one-byte wire code. `localOnly` kinds travel only sidecar → browser
 * and must never be put on Signal (chunking and batching refuse them, reassembly rejects them).
 */
export const KINDS = {
  update: { code: 0x01, localOnly: false },
  'sync-request': { code: 0x02, localOnly: false },
  'sync-response': { code: 0x03, localOnly: false },
  snapshot: { code: 0x04, localOnly: false },
  awareness: { code: 0x05, localOnly: false },
  health: { code: 0x06, localOnly: false },
  chunk: { code: 0x10, localOnly: false },
  batch: { code: 0x11, localOnly: false },
  ack: { code: 0x20, localOnly: true },
  error: { code: 0x21, localOnly: true },
  'chat-prompt': { code: 0x30, localOnly: false },
  'chat-reply': { code: 0x31, localOnly: false },
  'chat-control': { code: 0x32, localOnly: false },
  'chat-status': { code: 0x33, localOnly: false },
  // Listed last so the golden vectors of the kinds before it keep their bytes.
  attachment: { code: 0x12, localOnly: false },
  delivery: { code: 0x22, localOnly: true },
} as const

/** The name of an envelope kind, e.g. `'update'`. */
export type Kind = keyof typeof KINDS

/** All kind names in table order. */
export const KIND_NAMES = Object.keys(KINDS) as Kind[]

// Reverse table indexed by wire code; undefined marks an unknown code.
const KIND_BY_CODE: (Kind | undefined)[] = Array.from({ length: 256 }, () => undefined)
for (const name of KIND_NAMES) KIND_BY_CODE[KINDS[name].code] = name

/** The kind for a wire code, or `undefined` if the code is not in the v1 table. */
export function kindFromCode(code: number): Kind | undefined {
  return KIND_BY_CODE[code]
}

/** True for kinds that never leave the machine (sidecar → browser only). */
export function isLocalOnly(kind: Kind): boolean {
  return KINDS[kind].localOnly
}

/** Flag bits of the envelope's flags byte. Any other bit set is a decoding error. */
export const FLAGS = {
  /** The sender asks its sidecar for an `ack` once the message is on Signal. */
  ackRequested: 0x01,
  /** This is a resend of an earlier message id; receivers deduplicate it. */
  retransmit: 0x02,
  /**
   * The payload is raw DEFLATE (RFC 1951) of the real payload. Set only between sidecars, on Signal,
   * for large Yjs payloads; a receiving sidecar inflates (bounded) and clears it before anyone else
   * sees the envelope.
   */
  deflated: 0x04,
} as const

/** The union of all defined flag bits. */
export const KNOWN_FLAGS_MASK: number = FLAGS.ackRequested | FLAGS.retransmit | FLAGS.deflated
