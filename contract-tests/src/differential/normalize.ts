/**
 * What the differential does not compare, each for a stated reason (docs/daemon-contract.md §7,
 * "explained differences"): the accounts' ACIs (each daemon makes its own), timestamps (clocks),
 * identity keys in signal-cli's printed forms and the ids of v1 groups made during the run (each
 * daemon makes its own), the order of `listAccounts` (a Java map's) and of a group's member lists (a Java set's, which
 * follows the ACIs each run makes), and which socket exception an offline daemon meets
 * (the moment its websocket is in decides: `Closed unexpectedly`, `No connection!`).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const TIMESTAMP_KEYS = new Set(['timestamp', 'lastUpdateTimestamp', 'addedTimestamp'])
/**
 * Identity key material (each daemon makes its own keys), set aside only in signal-cli's printed
 * form, so a value of another form still shows as a difference.
 */
const KEY_FORMS: ReadonlyMap<string, (value: string) => boolean> = new Map([
  ['fingerprint', (v: string) => /^05( [0-9a-f]{2}){32}$/.test(v)],
  ['safetyNumber', (v: string) => /^\d{5}( \d{5}){11}$/.test(v)],
  [
    'scannableSafetyNumber',
    (v: string) => {
      const bytes = Buffer.from(v, 'base64')
      return bytes.length === 74 && bytes.subarray(0, 6).equals(Buffer.from([0x08, 0x02, 0x12, 0x22, 0x0a, 0x20]))
    },
  ],
])
/** `Closed unexpectedly`, `No connection!`, `Write failed!`, wrapped or not (`java.io.IOException: …`), and their class when named. */
const SOCKET_ERRORS =
  /(?:java\.(?:net|io)\.\w+: )*(?:Closed unexpectedly|No connection!|Write failed!|Connection closed!)(?: \((?:IOException|SocketException)\))?/g

/** A group's lists of people, whose order in the real daemon is a hash set's. */
const MEMBER_LISTS = new Set(['members', 'pendingMembers', 'requestingMembers', 'admins', 'bannedMembers'])
const numberOf = (person: unknown): string =>
  typeof person === 'string' ? person : String((person as { number?: unknown } | null)?.number ?? '')
const byNumber = (list: unknown): unknown =>
  Array.isArray(list) ? [...(list as unknown[])].sort((x, y) => numberOf(x).localeCompare(numberOf(y))) : list

/** Names for the ACIs one daemon gave the fixture's accounts (`uuid` → `<aci a>`). */
export type AciNames = ReadonlyMap<string, string>

function walk(value: unknown, acis: AciNames, key: string | undefined): unknown {
  if (typeof value === 'string') {
    // A v1 group made during the run (offline creation falls back to one) has a random 16-byte id;
    // the fixture's groups (32 bytes) are the same on both daemons and stay compared.
    if ((key === 'id' || key === 'groupId') && Buffer.from(value, 'base64').length === 16 && value.length === 24)
      return '<new v1 group id>'
    const keyForm = key === undefined ? undefined : KEY_FORMS.get(key)
    if (keyForm?.(value) === true) return `<${key}>`
    if (UUID.test(value)) return acis.get(value.toLowerCase()) ?? '<other uuid>'
    return value.replace(SOCKET_ERRORS, '<socket error>')
  }
  if (typeof value === 'number' && key !== undefined && TIMESTAMP_KEYS.has(key)) return '<timestamp>'
  if (Array.isArray(value)) return value.map((v) => walk(v, acis, undefined))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, acis, k)]))
  return value
}

/** One daemon's JSON-RPC answer with the uncompared parts replaced by stable markers. */
export function normalizeAnswer(method: string, answer: unknown, acis: AciNames): unknown {
  const out = walk(answer, acis, undefined) as { result?: unknown }
  if (method === 'listAccounts' && Array.isArray(out.result))
    out.result = [...(out.result as { number: string }[])].sort((x, y) => x.number.localeCompare(y.number))
  if (method === 'listGroups' && Array.isArray(out.result))
    out.result = (out.result as Record<string, unknown>[]).map((group) =>
      Object.fromEntries(Object.entries(group).map(([k, v]) => [k, MEMBER_LISTS.has(k) ? byNumber(v) : v])),
    )
  return out
}
