/**
 * Account-derived Yjs client ids: the binding rule of docs/decisions/0023.
 *
 * A page writes under a client id whose high bits are its account's **author tag** (a number the
 * sidecars derive from the account's phone number, so no member can pick one) and whose low bits
 * are random:
 *
 * ```
 * clientId := tag • 2^22 + random          2^10 ≤ tag < 2^20, 0 ≤ random < 2^22
 * ```
 *
 * Every id is below 2^42, so a varUint holds it in 6 bytes, one more than the 5 of most of Yjs's
 * own 32-bit draws (an id is written for every struct and every origin of an update: each extra
 * byte shows in the bytes an edit costs, `npm run bench` section 11). Twenty bits of tag make an
 * account whose number hashes to a given member's tag a one-in-a-million find, and two members of a
 * 50-person group share one with a chance of about 0.1 %; 22 random bits keep two pages of one
 * person apart (only pages writing at the same time under one id would conflict). Ids below 2^32
 * are what Yjs draws by itself (`random.uint32`): their "tag" is below {@link AUTHOR_TAG_MIN}, so
 * {@link authorTagOf} says they carry none (a legacy id).
 *
 * Pure arithmetic: the tag itself is computed by the sidecar (it needs a hash) and handed to its
 * pages in the `delivery` note's `author` field.
 */

/** Low bits of a derived client id drawn at random by the page. */
export const CLIENT_ID_RANDOM_BITS = 22
const RANDOM_SPAN = 2 ** CLIENT_ID_RANDOM_BITS
/** Smallest author tag: every id below 2^32 (Yjs's own draw) has a smaller high part. */
export const AUTHOR_TAG_MIN = 2 ** (32 - CLIENT_ID_RANDOM_BITS)
/** Largest author tag: a derived id stays below 2^42 (6 varUint bytes). */
export const AUTHOR_TAG_MAX = 2 ** (42 - CLIENT_ID_RANDOM_BITS) - 1
/** Largest client id any record may carry. */
export const MAX_DERIVED_CLIENT_ID = Number.MAX_SAFE_INTEGER

export function isAuthorTag(tag: unknown): tag is number {
  return typeof tag === 'number' && Number.isSafeInteger(tag) && tag >= AUTHOR_TAG_MIN && tag <= AUTHOR_TAG_MAX
}

/**
 * The client id for `tag` and a random draw `random` (taken modulo 2^22, so a `uint32` will do).
 * @throws RangeError when `tag` is not an author tag
 */
export function clientIdFor(tag: number, random: number): number {
  if (!isAuthorTag(tag)) throw new RangeError(`not an author tag: ${String(tag)}`)
  const low = Math.abs(Math.trunc(random)) % RANDOM_SPAN
  return tag * RANDOM_SPAN + low
}

/** The author tag a client id carries, or undefined for a legacy (below 2^32) or invalid id. */
export function authorTagOf(clientId: number): number | undefined {
  if (!Number.isSafeInteger(clientId) || clientId < 0) return undefined
  const tag = Math.floor(clientId / RANDOM_SPAN)
  return isAuthorTag(tag) ? tag : undefined
}

/**
 * The author tag for the first bytes of a hash of an account's identity: `hashHead` is read as an
 * unsigned 32-bit big-endian number and folded into [{@link AUTHOR_TAG_MIN}, {@link AUTHOR_TAG_MAX}].
 */
export function authorTagFromHash(hashHead: Uint8Array): number {
  if (hashHead.byteLength < 4) throw new RangeError('an author tag needs 4 bytes of hash')
  const n = ((hashHead[0]! << 24) | (hashHead[1]! << 16) | (hashHead[2]! << 8) | hashHead[3]!) >>> 0
  return AUTHOR_TAG_MIN + (n % (AUTHOR_TAG_MAX - AUTHOR_TAG_MIN + 1))
}
