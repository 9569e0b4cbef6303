import { describe, expect, it } from 'vitest'
import type { TurnResult } from '../agent/turn-runner.ts'
import { createRedactor } from '../redact/redactor.ts'
import { FAILURE_TAIL_BYTES, reportTurn } from './turn-report.ts'

const SECRET = 'zz-known-env-secret-value-31337'
const redactor = createRedactor({ env: { DEPLOY_TOKEN: SECRET } })
const ok: TurnResult = {
  outcome: 'ok',
  exitCode: 0,
  signal: null,
  stdout: 'all good',
  droppedStdoutBytes: 0,
  unkeptBytes: 0,
  outputBytes: 8,
  tail: '',
  durationMs: 10,
}
const report = (r: Partial<TurnResult>, timeoutMs?: number) =>
  reportTurn({ ...ok, ...r }, 4, redactor, timeoutMs, 'box')

describe('the report of a turn', () => {
  it('is the redacted reply, or says there was no output', async () => {
    expect(await report({ stdout: `key ${SECRET}` })).toEqual({ receipt: 'done', text: 'key [REDACTED:env]' })
    expect(await report({ stdout: ' \n' })).toEqual({ receipt: 'done', text: 'turn 4: (no output)' })
  })

  it('ends a reply too long to post with where the whole output is and how to get it', async () => {
    const spilled = { droppedStdoutBytes: 500, spilledTo: '/s/x.turn-4.output.txt' }
    expect((await report(spilled)).text).toBe(
      'all good\n[… 500 more bytes of output are too long to post: the whole output (redacted) is saved on box in /s/x.turn-4.output.txt; send "output" to get it here as a file]',
    )
    expect((await report({ ...spilled, unkeptBytes: 70 })).text).toBe(
      'all good\n[… 500 more bytes of output are too long to post: the output (redacted) is saved on box in /s/x.turn-4.output.txt, except its last 70 bytes (the file stops at its size bound); send "output" to get it here as a file]',
    )
    expect((await report({ droppedStdoutBytes: 500 })).text).toBe(
      'all good\n[… 500 more bytes of output could not be kept (the output file could not be written)]',
    )
  })

  it('of a cancelled turn says the chat goes on', async () => {
    expect(await report({ outcome: 'cancelled' })).toEqual({
      receipt: 'cancelled',
      text: 'turn 4 cancelled; the chat goes on.',
    })
  })

  it.each([
    [{ outcome: 'timeout' as const }, 90_000, 'killed after the turn timeout (1m30s)'],
    [{ outcome: 'failed' as const, spawnError: 'ENOENT' }, undefined, 'the agent could not start (ENOENT)'],
    [{ outcome: 'failed' as const, signal: 'SIGKILL', exitCode: null }, undefined, 'the agent was killed by SIGKILL'],
    [{ outcome: 'failed' as const, exitCode: 3 }, undefined, 'the agent exited with status 3'],
  ])('of a failed turn says how it failed (%j)', async (r, timeoutMs, how) => {
    const out = await report({ ...r, tail: `oops ${SECRET}` }, timeoutMs)
    expect(out.receipt).toBe('failed')
    expect(out.text.split('\n')[0]).toBe(
      `turn 4 failed: ${how}. The chat goes on; the next message resumes the same session.`,
    )
    expect(out.text.endsWith('last output:\noops [REDACTED:env]')).toBe(true)
  })

  it('quotes only the last bytes of a failure, after redaction', async () => {
    const out = await report({ outcome: 'failed', exitCode: 1, tail: `${SECRET} ${'x'.repeat(3000)}` })
    const quoted = out.text.slice(out.text.indexOf('last output:\n') + 'last output:\n'.length)
    expect(quoted).toBe(`…${'x'.repeat(FAILURE_TAIL_BYTES)}`)
  })
})
