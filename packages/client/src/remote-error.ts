/**
 * Reads the payload of an `error` envelope: UTF-8 JSON `{"code": "PROTO_…|SIDECAR_…", "message": "…"}`.
 * The payload is informative only, so anything unreadable becomes a generic error; lengths are capped
 * because the text ends up in the UI.
 */
export function readRemoteError(payload: Uint8Array): { remoteCode: string; message: string } {
  let remoteCode = 'UNKNOWN'
  let message = 'the sidecar rejected a message'
  try {
    const body = JSON.parse(new TextDecoder().decode(payload)) as unknown
    if (typeof body === 'object' && body !== null) {
      const b = body as Record<string, unknown>
      if (typeof b['code'] === 'string') remoteCode = b['code'].slice(0, 64)
      if (typeof b['message'] === 'string') message = b['message'].slice(0, 500)
    }
  } catch {
    // keep the generic message
  }
  return { remoteCode, message }
}
