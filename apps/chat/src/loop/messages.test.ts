import { describe, expect, it } from 'vitest'
import { CONTROL_PHRASES_HELP } from '../control.ts'
import { announcement, failureText, formatDuration, lastBytes, statusText, type StatusFacts } from './messages.ts'

const facts = {
  host: 'box',
  topic: 'review auth',
  agent: 'copilot',
  sessionId: 'sid-1',
  allowlist: ['view', 'grep'],
  inboxCapacity: 32,
}

describe('the announcement', () => {
  it('of a new chat names topic, agent, session, the allowlist verbatim, the queue and the control phrases', () => {
    expect(announcement(facts)).toBe(
      [
        'e2e-col chat started on box.',
        'topic: review auth',
        'agent: copilot, session sid-1',
        'allowed tools (what a message here can make the agent do): view, grep',
        'each message is the next prompt, one turn at a time; up to 32 wait in the queue.',
        `control: ${CONTROL_PHRASES_HELP}.`,
      ].join('\n'),
    )
  })
  it('of a resumed chat says after which turn, and names each leftover turn killed', () => {
    const text = announcement({ ...facts, resumedAtTurn: 4, leftovers: [3, 4] })
    expect(text.split('\n').slice(0, 3)).toEqual([
      'e2e-col chat resumed on box: same agent session, continuing after turn 4.',
      'turn 3 was left running by an earlier e2e-col process that died; it is killed now.',
      'turn 4 was left running by an earlier e2e-col process that died; it is killed now.',
    ])
  })
})

describe('durations', () => {
  it.each([
    [-5, '0s'],
    [999, '0s'],
    [59_999, '59s'],
    [60_000, '1m00s'],
    [185_000, '3m05s'],
    [3_599_999, '59m59s'],
    [3_600_000, '1h00m'],
    [3_720_000, '1h02m'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })
})

describe('status', () => {
  const base: StatusFacts = {
    sessionId: 'sid-1',
    turn: 3,
    running: undefined,
    allowlist: ['view', 'grep'],
    queued: 2,
    capacity: 32,
    membership: undefined,
    auditLog: '/s/x.audit.jsonl',
  }
  it('when idle, before any membership check', () => {
    expect(statusText(base)).toBe(
      [
        'status: idle',
        'session sid-1, 3 turn(s) so far',
        'allowed tools: view, grep',
        'queue: 2/32',
        'last membership check: not yet',
        'audit log: /s/x.audit.jsonl',
      ].join('\n'),
    )
  })
  it('names the last membership check, passed or failed', () => {
    expect(statusText({ ...base, membership: { agoMs: 65_000, ok: true } })).toContain(
      'last membership check: 1m05s ago, ok',
    )
    expect(statusText({ ...base, membership: { agoMs: 2000, ok: false } })).toContain(
      'last membership check: 2s ago, FAILED: posting withheld',
    )
  })
  it('says whether the turn runs, is posting (n of m) or is held, with the reason', () => {
    const running = { turn: 4, elapsedMs: 61_000, outputBytes: 120 }
    const line = (phase: NonNullable<StatusFacts['running']>['phase']) =>
      statusText({ ...base, running: { ...running, phase } }).split('\n')[0]
    expect(line({ kind: 'running' })).toBe('status: turn 4 running for 1m01s (120 bytes of output so far)')
    expect(line({ kind: 'posting', posted: 0, total: 0 })).toBe(
      'status: turn 4 finished (120 bytes of output); posting its reply: preparing its reply',
    )
    expect(line({ kind: 'posting', posted: 2, total: 5 })).toBe(
      'status: turn 4 finished (120 bytes of output); posting its reply: 2 of 5 part(s) posted',
    )
    expect(line({ kind: 'held', reason: 'stranger', posted: 1, total: 5 })).toBe(
      'status: turn 4 finished (120 bytes of output); its reply is held (stranger): 1 of 5 part(s) posted',
    )
  })
})

describe('failure notices', () => {
  it('quote the tail, or say there was no output', () => {
    expect(failureText(2, 'the agent exited with status 3', 'boom\n\n')).toBe(
      'turn 2 failed: the agent exited with status 3. The chat goes on; the next message resumes the same session.\nlast output:\nboom',
    )
    expect(failureText(2, 'x', ' \n')).toMatch(/\nlast output:\n\(no output\)$/)
  })
  it('keep the last bytes, never splitting a character', () => {
    expect(lastBytes('abc', 3)).toBe('abc')
    expect(lastBytes('abcd', 3)).toBe('…bcd')
    // "é" is two bytes: a cut inside it moves past it.
    expect(lastBytes('aéb', 2)).toBe('…b')
    expect(lastBytes('aéb', 3)).toBe('…éb')
  })
})
