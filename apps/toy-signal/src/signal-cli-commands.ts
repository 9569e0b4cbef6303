/**
 * signal-cli's JSON-RPC command names that the toy does not implement, grouped by how the real
 * daemon routes `account` before running them. Probed against signal-cli 0.13.19 in multi-account
 * mode: each of these answers -32602 for a missing or unknown account, never -32601, so the toy
 * routes them first and only then says `Method not implemented`.
 * @see docs/daemon-contract.md §7, reference `signal-cli-wire.md` §3
 */

/** Per-account (`JsonRpcLocalCommand`) commands: routed exactly like `send` or `listGroups`. */
export const UNIMPLEMENTED_ACCOUNT_COMMANDS: ReadonlySet<string> = new Set([
  'addDevice',
  'addStickerPack',
  'block',
  'finishChangeNumber',
  'getAttachment',
  'getAvatar',
  'getSticker',
  'listStickerPacks',
  'receive',
  'remoteDelete',
  'removeContact',
  'removeDevice',
  'removePin',
  'sendContacts',
  'sendPaymentNotification',
  'sendReceipt',
  'sendSyncRequest',
  'setPin',
  'startChangeNumber',
  'submitRateLimitChallenge',
  'trust',
  'unblock',
  'unregister',
  'updateAccount',
  'updateConfiguration',
  'uploadStickerPack',
])

/**
 * Registration commands: a missing account is -32602 `Method requires valid account parameter`
 * (no single-account fallback); any given account, even an unknown one, reaches the command, which
 * on a real daemon talks to Signal's servers. (`register` and `verify` are implemented.)
 */
export const UNIMPLEMENTED_REGISTRATION_COMMANDS: ReadonlySet<string> = new Set(['deleteLocalAccountData'])
