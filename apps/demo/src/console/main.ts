/**
 * The chat console page: the conversation of one chat, an input for prompts, a status line and a
 * stop button, over the sidecar's `/v1/chats/<chatId>` WebSocket. Text is only ever set with
 * `textContent`: what arrives may come from anyone in the group.
 */
import { readChatFrame, writeChatFrame, type ConsoleSender } from './chat-frames.ts'
import { readConsoleParams } from './console-params.ts'
import { createConversation } from './conversation.ts'
import { element, showProblem } from '../start-up.ts'

const RECONNECT_MS = 2000
const parsed = readConsoleParams(location.search)
if (!parsed.ok) {
  showProblem(parsed.problem)
} else {
  const { socketUrl, chatId } = parsed.params
  element('chat-id').textContent = chatId
  const conversation = createConversation()
  let seq = 0
  const sender: ConsoleSender = {
    chatId,
    senderId: crypto.randomUUID(),
    nextSeq: () => seq++,
    newMessageId: () =>
      Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join(''),
  }
  const list = element<HTMLOListElement>('conversation')
  const statusLine = element('status-line')
  const pill = element('connection')
  let socket: WebSocket | undefined

  const render = (): void => {
    list.replaceChildren(
      ...conversation.entries.map((entry) => {
        const li = document.createElement('li')
        li.className = `entry ${entry.who}`
        const who = document.createElement('span')
        who.className = 'who'
        who.textContent = entry.who === 'agent' ? 'agent' : entry.who === 'note' ? 'loop' : entry.who
        const text = document.createElement('pre')
        text.textContent = entry.text
        li.append(who, text)
        if (entry.state !== undefined) {
          const state = document.createElement('span')
          state.className = 'state'
          state.dataset['state'] = entry.state
          state.textContent = entry.state
          li.append(state)
        }
        return li
      }),
    )
    statusLine.textContent = conversation.statusLine
    list.lastElementChild?.scrollIntoView({ block: 'end' })
  }

  const setConnection = (state: 'connecting' | 'connected' | 'offline'): void => {
    pill.dataset['state'] = state
    pill.textContent = state
  }

  const connect = (): void => {
    setConnection('connecting')
    const ws = new WebSocket(socketUrl)
    ws.binaryType = 'arraybuffer'
    socket = ws
    ws.addEventListener('open', () => setConnection('connected'))
    ws.addEventListener('message', (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data === 'string') return
      const frame = readChatFrame(new Uint8Array(event.data), chatId)
      if (frame === undefined) return
      conversation.apply(frame)
      render()
    })
    ws.addEventListener('close', () => {
      setConnection('offline')
      socket = undefined
      setTimeout(connect, RECONNECT_MS)
    })
  }

  const send = (input: Parameters<typeof writeChatFrame>[1], shown: string | undefined): void => {
    if (socket?.readyState !== WebSocket.OPEN) {
      statusLine.textContent = 'not connected to e2e-col on this computer; try again in a moment'
      return
    }
    const { frame, messageId } = writeChatFrame(sender, input)
    socket.send(frame)
    if (shown !== undefined) conversation.typed(messageId, shown)
    render()
  }

  element<HTMLFormElement>('prompt-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const input = element<HTMLTextAreaElement>('prompt')
    const text = input.value.trim()
    if (text === '') return
    send({ kind: 'chat-prompt', text }, text)
    input.value = ''
  })
  element('status-button').addEventListener('click', () => send({ kind: 'chat-control', action: 'status' }, undefined))
  element('cancel-button').addEventListener('click', () => send({ kind: 'chat-control', action: 'cancel' }, undefined))
  element('stop-button').addEventListener('click', () => {
    if (confirm('Stop the chat? The running turn is killed and the loop leaves the group.'))
      send({ kind: 'chat-control', action: 'stop' }, undefined)
  })
  connect()
  render()
  // A small handle for the browser test.
  Object.assign(window, {
    e2eColConsole: {
      entries: () => conversation.entries.map((e) => ({ ...e })),
      statusLine: () => conversation.statusLine,
    },
  })
}
