/**
 * Reads the console page's settings from its URL: `?sidecar=ws://127.0.0.1:7600&chat=<chat UUID>`.
 * The chat id is printed by `e2e-col chat` when it runs with `--sidecar`.
 */
import { isUuid } from '@e2e-col/protocol'

export interface ConsoleParams {
  /** The chat's WebSocket address on the sidecar. */
  readonly socketUrl: string
  readonly chatId: string
}

export function readConsoleParams(
  search: string,
): { ok: true; params: ConsoleParams } | { ok: false; problem: string } {
  const query = new URLSearchParams(search)
  const chatId = (query.get('chat') ?? '').toLowerCase()
  let sidecar: URL
  try {
    sidecar = new URL(query.get('sidecar') ?? '')
  } catch {
    return { ok: false, problem: 'This page needs ?sidecar=ws://HOST:PORT in its address.' }
  }
  if (sidecar.protocol === 'http:' || sidecar.protocol === 'https:')
    sidecar.protocol = sidecar.protocol === 'http:' ? 'ws:' : 'wss:'
  if (sidecar.protocol !== 'ws:' && sidecar.protocol !== 'wss:')
    return { ok: false, problem: 'The e2e-col address must be ws:// or wss://.' }
  if (!isUuid(chatId))
    return {
      ok: false,
      problem: 'This page needs ?chat=<chat UUID> in its address (e2e-col chat --sidecar prints it).',
    }
  return { ok: true, params: { socketUrl: `${sidecar.origin}/v1/chats/${chatId}`, chatId } }
}
