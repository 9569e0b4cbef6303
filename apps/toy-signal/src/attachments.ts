/**
 * Attachments as signal-cli handles them: `send` takes RFC 2397 data URIs (`DataURI.of`), the
 * receiving daemon keeps each attachment under an id (remote id + extension, as
 * `AttachmentStore.getAttachmentFile` names it), and `getAttachment` reads it back by id. The toy
 * keeps them in memory, per receiving account, bounded in count and bytes (oldest dropped first,
 * as if its files had been deleted).
 * @see reference `signal-cli-wire.md` §4.1, §6.1; signal-cli `DataURI`, `GetAttachmentCommand`
 */

/** A decoded data URI. */
export interface DataUri {
  mediaType: string
  filename: string | undefined
  data: Buffer
}

// signal-cli's DATA_URI_PATTERN and PARAMETER_PATTERN (case-insensitive; `.` stops at line ends).
const DATA_URI = /^data:(?<type>.+?\/.+?)?(?<parameters>;.+?=.+?)?(?<base64>;base64)?,(?<data>.+)$/i
const PARAMETER = /^;(?<key>.+)=(?<value>.+)$/i
// java.util.Base64.getDecoder(): the basic alphabet, padding optional, nothing else.
const BASIC_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function urlDecode(text: string): string {
  // java.net.URLDecoder: `+` is a space, %XX are UTF-8 bytes.
  return decodeURIComponent(text.replace(/\+/g, ' '))
}

/** Parses a data URI as signal-cli does, or `undefined` where it would fall back to a file path. */
export function parseDataUri(value: string): DataUri | undefined {
  const m = DATA_URI.exec(value)
  if (m?.groups === undefined) return undefined
  const g = m.groups
  let filename: string | undefined
  try {
    const p = g['parameters'] === undefined ? null : PARAMETER.exec(g['parameters'])
    if (p?.groups !== undefined && p.groups['key'] === 'filename') filename = urlDecode(p.groups['value'] ?? '')
    const raw = g['data'] ?? ''
    let data: Buffer
    if (g['base64'] !== undefined) {
      const unpadded = raw.replace(/=+$/, '')
      if (!BASIC_BASE64.test(raw) || unpadded.length % 4 === 1) return undefined
      data = Buffer.from(raw, 'base64')
    } else data = Buffer.from(urlDecode(raw), 'utf8')
    return { mediaType: g['type'] ?? 'text/plain', filename, data }
  } catch {
    // URLDecoder's IllegalArgumentException: signal-cli then tries the text as a path.
    return undefined
  }
}

/** The `attachments[]` element of a receive event (`JsonAttachment`). */
export interface AttachmentInfo {
  contentType: string
  filename: string | null
  id: string
  size: number
  width: null
  height: null
  caption: null
  uploadTimestamp: number
}

// MimeUtils.guessExtensionFromMimeType for the types e2e-col and tests send.
const EXTENSIONS: Record<string, string> = {
  'text/plain': 'txt',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/pdf': 'pdf',
  'audio/aac': 'aac',
}

/** The id signal-cli files an attachment under: remote id, then the extension of the name or type. */
export function attachmentId(remoteId: string, filename: string | undefined, contentType: string): string {
  const fromName =
    filename !== undefined && filename.includes('.') ? filename.slice(filename.lastIndexOf('.') + 1) : undefined
  const ext = fromName ?? EXTENSIONS[contentType.toLowerCase()]
  return ext === undefined ? remoteId : `${remoteId}.${ext}`
}

/** Bounds of the store. */
export interface AttachmentStoreLimits {
  /** Most bytes kept over all accounts (default 64 MiB). */
  maxBytes: number
  /** Most attachments kept (default 4096). */
  maxCount: number
}

export interface AttachmentStore {
  /** Keeps `data` for `account` under `id`; drops the oldest beyond the bounds. */
  put(account: string, id: string, data: Buffer): void
  get(account: string, id: string): Buffer | undefined
  readonly bytes: number
  readonly count: number
}

export const DEFAULT_ATTACHMENT_STORE_LIMITS: AttachmentStoreLimits = { maxBytes: 64 * 1024 * 1024, maxCount: 4096 }

const key = (account: string, id: string): string => `${account}\u0000${id}`

export function createAttachmentStore(
  limits: AttachmentStoreLimits = DEFAULT_ATTACHMENT_STORE_LIMITS,
): AttachmentStore {
  // Insertion order is age order: the first key is the oldest.
  const files = new Map<string, Buffer>()
  let bytes = 0
  return {
    put(account, id, data) {
      const k = key(account, id)
      const old = files.get(k)
      if (old !== undefined) {
        bytes -= old.length
        files.delete(k)
      }
      files.set(k, data)
      bytes += data.length
      for (const [oldest, value] of files) {
        if (bytes <= limits.maxBytes && files.size <= limits.maxCount) break
        files.delete(oldest)
        bytes -= value.length
      }
    },
    get: (account, id) => files.get(key(account, id)),
    get bytes() {
      return bytes
    },
    get count() {
      return files.size
    },
  }
}

/** signal-cli 0.14's `sanitizeId`: anything outside `[A-Za-z0-9_.-]` becomes `_` (no path escapes). */
export function sanitizeAttachmentId(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_')
}
