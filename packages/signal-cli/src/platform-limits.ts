/**
 * Signal's limits on what a client may send, read from Signal-Server and the clients (reference
 * `signal-cli-wire.md` §9.1). Production may override server values; these are the published
 * defaults a sender should stay within.
 */

/** Largest content of one message the server takes (`MessageSender`): 96 KiB. */
export const SIGNAL_MAX_CONTENT_BYTES = 96 * 1024
/** Largest attachment clients accept by default (remote config `global.attachments.maxBytes`): 100 MiB. */
export const SIGNAL_MAX_ATTACHMENT_BYTES = 100 * 1024 * 1024
/** Most members of one group (signal-cli `GROUP_MAX_SIZE`, the server's hard limit). */
export const SIGNAL_MAX_GROUP_MEMBERS = 1001
/** A linked device idle for longer than this is removed by Signal's server. */
export const SIGNAL_LINKED_DEVICE_IDLE_DAYS = 45
