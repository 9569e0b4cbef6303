/**
 * The console's model of the conversation: entries in arrival order, each prompt with the latest
 * receipt the loop gave it, and one status line. Pure, so it is tested without a browser.
 */
import type { ChatFrame } from './chat-frames.ts'

export interface Entry {
  readonly id: string
  readonly who: 'you' | 'console' | 'phone' | 'agent' | 'note'
  readonly text: string
  /** For prompts: queued, running, done, failed, cancelled, rejected, or `sent` before the loop took it. */
  state: string | undefined
}

export interface Conversation {
  readonly entries: readonly Entry[]
  /** The line under the conversation: the latest thing the loop or the sidecar said. */
  readonly statusLine: string
  /** A prompt typed here, shown at once and tracked by its message id. */
  typed(messageId: string, text: string): void
  apply(frame: ChatFrame): void
}

export function createConversation(): Conversation {
  const entries: Entry[] = []
  let statusLine = 'waiting for the chat loop'
  const byRef = new Map<string, Entry>()

  const add = (entry: Entry): void => {
    entries.push(entry)
  }

  return {
    entries,
    get statusLine() {
      return statusLine
    },
    typed(messageId, text) {
      const entry: Entry = { id: messageId, who: 'you', text, state: 'sent' }
      byRef.set(messageId, entry)
      add(entry)
    },
    apply(frame) {
      switch (frame.kind) {
        case 'chat-prompt': {
          // The loop echoes a prompt typed here with its ref: already shown.
          if (frame.ref !== undefined && byRef.has(frame.ref)) return
          const entry: Entry = { id: frame.id, who: frame.from, text: frame.text, state: undefined }
          if (frame.ref !== undefined) byRef.set(frame.ref, entry)
          return add(entry)
        }
        case 'chat-reply':
          statusLine = frame.turn === undefined ? 'reply received' : `turn ${frame.turn} answered`
          return add({ id: frame.id, who: 'agent', text: frame.text, state: undefined })
        case 'chat-status': {
          const target = frame.ref === undefined ? undefined : byRef.get(frame.ref)
          if (target !== undefined && frame.state !== 'info') target.state = frame.state
          if (frame.state === 'info' && frame.text !== undefined)
            add({ id: frame.id, who: 'note', text: frame.text, state: undefined })
          statusLine = frame.text ?? `prompt ${frame.state}`
          return
        }
        case 'ack': {
          const target = byRef.get(frame.ref)
          if (target?.state === 'sent') target.state = 'delivered'
          return
        }
        case 'error': {
          const target = byRef.get(frame.ref)
          if (target !== undefined) target.state = 'refused'
          statusLine = `${frame.code}: ${frame.message}`
          return
        }
      }
    },
  }
}
