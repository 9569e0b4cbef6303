// The audit log: who drove the agent, from which device, when, in which turn, and what came of it.
import { readFileSync, statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AGENT_SECRET, OPERATOR, stopsCleanly, until, useWorld } from './harness.ts'

const worlds = useWorld()

interface AuditLine {
  at: string
  event: string
  sender: string
  device: number | null
  signalTimestamp: number | null
  sessionId: string
  turn: number | null
  outcome: string
  text?: string
}

describe('the audit log', () => {
  it('records every accepted prompt, control phrase and turn outcome, redacted and masked, in a 0600 file that status names', async () => {
    const { world, chat, groupId, sessionId } = await worlds.chat('echo topic')
    await chat.replied('echo topic')
    const prompt = await world.inject(groupId, `echo deploy with ${AGENT_SECRET}`, {
      source: OPERATOR,
      sourceDevice: 2,
    })
    await chat.events.next('receipt', (e) => e.target === prompt && e.state === 'done')
    const hang = await world.say(groupId, 'hang')
    await chat.events.next('turn-started', (e) => e.turn === 3)
    const status = await world.say(groupId, 'status')
    const answer = await chat.events.next('posted', (e) => e.text.startsWith('status:'))
    const path = /^audit log: (.+)$/m.exec(answer.text)?.[1] as string
    expect(path).toMatch(/\.audit\.jsonl$/)
    const cancel = await world.say(groupId, 'cancel')
    await chat.events.next('receipt', (e) => e.target === hang && e.state === 'cancelled')
    const read = () =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as AuditLine)
    await until(
      () => read().some((l) => l.event === 'turn' && l.turn === 3),
      10_000,
      'the cancelled turn in the audit log',
    )

    expect(statSync(path).mode & 0o777).toBe(0o600)
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain(AGENT_SECRET)
    expect(text).not.toContain(OPERATOR)
    const lines = read().map(({ at, ...rest }) => {
      expect(Number.isNaN(Date.parse(at))).toBe(false)
      return rest
    })
    const masked = '+1555…02'
    expect(lines).toEqual([
      { event: 'turn', sender: 'topic', device: null, signalTimestamp: null, sessionId, turn: 1, outcome: 'done' },
      {
        event: 'prompt',
        sender: masked,
        device: 2,
        signalTimestamp: prompt,
        sessionId,
        turn: null,
        outcome: 'queued (position 1)',
        text: 'echo deploy with [REDACTED:env]',
      },
      { event: 'turn', sender: masked, device: 2, signalTimestamp: prompt, sessionId, turn: 2, outcome: 'done' },
      {
        event: 'prompt',
        sender: masked,
        device: 1,
        signalTimestamp: hang,
        sessionId,
        turn: null,
        outcome: 'queued (position 1)',
        text: 'hang',
      },
      {
        event: 'control',
        sender: masked,
        device: 1,
        signalTimestamp: status,
        sessionId,
        turn: 3,
        outcome: 'status answered',
        text: 'status',
      },
      {
        event: 'control',
        sender: masked,
        device: 1,
        signalTimestamp: cancel,
        sessionId,
        turn: 3,
        outcome: 'turn cancelled',
        text: 'cancel',
      },
      { event: 'turn', sender: masked, device: 1, signalTimestamp: hang, sessionId, turn: 3, outcome: 'cancelled' },
    ])
    await stopsCleanly(chat)
  })
})
