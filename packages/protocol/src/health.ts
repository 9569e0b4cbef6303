/**
 * The `health` envelope's payload: a small versioned record list, so each field a sidecar announces
 * to its group (what it can read, a request to announce back, its replica's state) is its own record
 * and a reader skips the records it does not know.
 *
 * ```
 * health payload := ε                                   (a bare liveness probe: announces nothing)
 *                 | u8(format = 01) • record*
 * record         := varUint(tag) • varUint(length) • value[length]      tags strictly ascending
 * capabilities   := varUint(envelopeVersion) • varUint(features)         tag 0x01
 * hello          := ε                                                    tag 0x02
 * stateVector    := a Yjs state vector                                   tag 0x03
 * authors        := varUint(count) • varUint(clientId)^count             tag 0x04, 1 ≤ count ≤ 64
 * ```
 *
 * Known records must be exactly their grammar; unknown tags are kept raw and otherwise ignored.
 * Feature bits a reader does not know are kept too: they only ever mean "can read more".
 *
 * @see docs/protocol.md §3.12 "Health and capabilities"
 */
import { ByteReader, MAX_VARUINT, varUintLength, writeVarUint } from './byte-reader.ts'
import { isProtocolError, ProtocolError } from './errors.ts'

/** The record-list format this package reads and writes. */
export const HEALTH_FORMAT = 1
/** Most records one health payload may hold. */
export const MAX_HEALTH_RECORDS = 32
/** Most Yjs client ids one `authors` record may name. */
export const MAX_ANNOUNCED_AUTHORS = 64
/** Largest Yjs client id: a safe integer (account-derived ids reach 2^53 - 1, author-id.ts). */
export const MAX_CLIENT_ID = Number.MAX_SAFE_INTEGER

/** Record tags. Stable wire constants: never renumber, only add. */
export const HEALTH_TAGS = {
  capabilities: 0x01,
  hello: 0x02,
  /** The sender's replica state vector (Yjs); carried, not interpreted here. */
  stateVector: 0x03,
  /** Yjs client ids the sender's own pages write with: they are the sending account's. */
  authors: 0x04,
} as const

/** Feature bits of the capabilities record. */
export const CAPABILITY = {
  /** Reads envelopes with the `deflated` flag (raw DEFLATE payloads). */
  deflate: 0x01,
  /** Reads `attachment` envelopes and fetches the Signal attachment they name. */
  attachments: 0x02,
} as const

/** What a member can read. */
export interface Capabilities {
  /** Highest envelope version it reads (this package: 1). */
  readonly envelopeVersion: number
  /** Bitwise OR of {@link CAPABILITY} bits, possibly with bits unknown to this reader. */
  readonly features: number
}

/** A decoded (or to-be-encoded) health payload. */
export interface Health {
  readonly capabilities?: Capabilities
  /** The sender asks every member to announce itself back (sent once at start). */
  readonly hello?: boolean
  readonly stateVector?: Uint8Array
  /** Yjs client ids the sender's pages write with, in the order given (1 … {@link MAX_ANNOUNCED_AUTHORS}). */
  readonly authors?: readonly number[]
  /** Records with tags this reader does not know, by tag (encoding writes them back in tag order). */
  readonly unknown?: ReadonlyMap<number, Uint8Array>
}

function malformed(message: string): ProtocolError {
  return new ProtocolError('PROTO_HEALTH_MALFORMED', `health payload: ${message}`)
}

function checkUint(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ProtocolError('PROTO_INVALID_FIELD', `${field} must be an integer in 0 … 2^53 − 1`)
}

function encodeAuthors(authors: readonly number[]): Uint8Array {
  if (!Array.isArray(authors) || authors.length === 0 || authors.length > MAX_ANNOUNCED_AUTHORS)
    throw new ProtocolError('PROTO_INVALID_FIELD', `authors must name 1 … ${MAX_ANNOUNCED_AUTHORS} client ids`)
  for (const id of authors) {
    checkUint(id, 'a client id')
    if (id > MAX_CLIENT_ID) throw new ProtocolError('PROTO_INVALID_FIELD', `a client id is at most ${MAX_CLIENT_ID}`)
  }
  const value = new Uint8Array(authors.reduce((n, id) => n + varUintLength(id), varUintLength(authors.length)))
  let at = writeVarUint(value, 0, authors.length)
  for (const id of authors) at = writeVarUint(value, at, id)
  return value
}

function decodeAuthors(value: Uint8Array): number[] {
  const v = new ByteReader(value, 'authors record')
  const count = v.varUint('authors count', MAX_ANNOUNCED_AUTHORS, 'PROTO_LENGTH_OVERFLOW')
  if (count === 0) throw malformed('authors record names no client id')
  const ids: number[] = []
  for (let i = 0; i < count; i++) ids.push(v.varUint('client id', MAX_CLIENT_ID, 'PROTO_LENGTH_OVERFLOW'))
  if (v.remaining !== 0) throw malformed(`authors record has ${v.remaining} byte(s) after its client ids`)
  return ids
}

/**
 * Encodes a health payload (always in format 1, even with no records).
 * @throws ProtocolError `PROTO_INVALID_FIELD` for a negative or fractional number, a non-byte value,
 *   an authors list empty, over {@link MAX_ANNOUNCED_AUTHORS} or with an id over {@link MAX_CLIENT_ID},
 *   or an unknown record whose tag is a known one.
 */
export function encodeHealth(health: Health): Uint8Array {
  const records: [number, Uint8Array][] = []
  if (health.capabilities !== undefined) {
    const { envelopeVersion, features } = health.capabilities
    checkUint(envelopeVersion, 'envelopeVersion')
    checkUint(features, 'features')
    const value = new Uint8Array(varUintLength(envelopeVersion) + varUintLength(features))
    writeVarUint(value, writeVarUint(value, 0, envelopeVersion), features)
    records.push([HEALTH_TAGS.capabilities, value])
  }
  if (health.hello === true) records.push([HEALTH_TAGS.hello, new Uint8Array(0)])
  if (health.stateVector !== undefined) {
    if (!(health.stateVector instanceof Uint8Array))
      throw new ProtocolError('PROTO_INVALID_FIELD', 'stateVector must be a Uint8Array')
    records.push([HEALTH_TAGS.stateVector, health.stateVector])
  }
  if (health.authors !== undefined) records.push([HEALTH_TAGS.authors, encodeAuthors(health.authors)])
  const known = new Set<number>(Object.values(HEALTH_TAGS))
  for (const [tag, value] of health.unknown ?? []) {
    checkUint(tag, 'record tag')
    if (known.has(tag))
      throw new ProtocolError('PROTO_INVALID_FIELD', `record tag ${tag} is a known record; use its field`)
    if (!(value instanceof Uint8Array))
      throw new ProtocolError('PROTO_INVALID_FIELD', 'a record value must be a Uint8Array')
    records.push([tag, value])
  }
  if (records.length > MAX_HEALTH_RECORDS)
    throw new ProtocolError('PROTO_INVALID_FIELD', `at most ${MAX_HEALTH_RECORDS} records`)
  records.sort((a, b) => a[0] - b[0])
  let size = 1
  for (const [tag, value] of records) size += varUintLength(tag) + varUintLength(value.length) + value.length
  const out = new Uint8Array(size)
  out[0] = HEALTH_FORMAT
  let at = 1
  for (const [tag, value] of records) {
    at = writeVarUint(out, at, tag)
    at = writeVarUint(out, at, value.length)
    out.set(value, at)
    at += value.length
  }
  return out
}

/**
 * Decodes a health payload strictly. An empty payload is a bare probe and decodes to `{}`. Values
 * are views into `payload` (no copy).
 * @throws ProtocolError `PROTO_HEALTH_MALFORMED` for another format, tags out of order or repeated,
 *   a record that overruns the payload, a known record not matching its grammar, or more than
 *   {@link MAX_HEALTH_RECORDS} records; `PROTO_NON_CANONICAL_VARINT` for an overlong varint.
 */
export function decodeHealth(payload: Uint8Array): Health {
  if (!(payload instanceof Uint8Array)) throw new ProtocolError('PROTO_INVALID_FIELD', 'payload must be a Uint8Array')
  if (payload.length === 0) return {}
  if (payload[0] !== HEALTH_FORMAT) throw malformed(`format ${payload[0]} is not ${HEALTH_FORMAT}`)
  const r = new ByteReader(payload, 'health payload', 1)
  let capabilities: Capabilities | undefined
  let hello = false
  let stateVector: Uint8Array | undefined
  let authors: number[] | undefined
  const unknown = new Map<number, Uint8Array>()
  let last = -1
  let count = 0
  try {
    while (r.remaining > 0) {
      if (++count > MAX_HEALTH_RECORDS) throw malformed(`more than ${MAX_HEALTH_RECORDS} records`)
      const tag = r.varUint('record tag', MAX_VARUINT, 'PROTO_LENGTH_OVERFLOW')
      if (tag <= last) throw malformed(`record tag ${tag} after tag ${last} (tags must be strictly ascending)`)
      last = tag
      const length = r.varUint('record length', payload.length, 'PROTO_LENGTH_OVERFLOW')
      if (length > r.remaining)
        throw malformed(`record ${tag} of ${length} bytes overruns the payload (${r.remaining} left)`)
      const value = r.view(length, 'record value')
      if (tag === HEALTH_TAGS.capabilities) {
        const v = new ByteReader(value, 'capabilities record')
        capabilities = {
          envelopeVersion: v.varUint('envelopeVersion', MAX_VARUINT, 'PROTO_LENGTH_OVERFLOW'),
          features: v.varUint('features', MAX_VARUINT, 'PROTO_LENGTH_OVERFLOW'),
        }
        if (v.remaining !== 0) throw malformed(`capabilities record has ${v.remaining} byte(s) after its fields`)
      } else if (tag === HEALTH_TAGS.hello) {
        if (length !== 0) throw malformed('hello record must be empty')
        hello = true
      } else if (tag === HEALTH_TAGS.stateVector) stateVector = value
      else if (tag === HEALTH_TAGS.authors) authors = decodeAuthors(value)
      else unknown.set(tag, value)
    }
  } catch (error) {
    // Inside the record list every cut or overflow is one malformed payload; overlong stays its own.
    if (isProtocolError(error) && (error.code === 'PROTO_TRUNCATED' || error.code === 'PROTO_LENGTH_OVERFLOW'))
      throw malformed(error.message)
    throw error
  }
  return {
    ...(capabilities === undefined ? {} : { capabilities }),
    ...(hello ? { hello } : {}),
    ...(stateVector === undefined ? {} : { stateVector }),
    ...(authors === undefined ? {} : { authors }),
    ...(unknown.size === 0 ? {} : { unknown }),
  }
}

/** True when `capabilities` (possibly absent: a member that never announced) include every bit of `features`. */
export function canRead(capabilities: Capabilities | undefined, features: number): boolean {
  return (
    capabilities !== undefined && capabilities.envelopeVersion >= 1 && (capabilities.features & features) === features
  )
}
