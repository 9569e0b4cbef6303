import { describe, expect, it } from 'vitest'
import { parseApprovalCommand } from './commands.ts'

describe('a Note-to-Self reply is a command only when it is exactly one', () => {
  it('reads accept and reject of one number, several, or all; any case, white space around', () => {
    expect(parseApprovalCommand('accept 1')).toEqual({ verb: 'accept', items: [1] })
    expect(parseApprovalCommand('  Reject 2\n')).toEqual({ verb: 'reject', items: [2] })
    expect(parseApprovalCommand('ACCEPT ALL')).toEqual({ verb: 'accept', items: 'all' })
    expect(parseApprovalCommand('reject all')).toEqual({ verb: 'reject', items: 'all' })
    expect(parseApprovalCommand('accept 1 3, 3')).toEqual({ verb: 'accept', items: [1, 3] })
  })

  it("leaves the person's own notes alone: other words, a command inside a sentence, no number", () => {
    for (const body of [
      'accept',
      'accept 1 please',
      'I will accept 1 later',
      'accepted 1',
      'accept -1',
      'accept 1.5',
      'approve 1',
      'accept 1234',
      '',
      'Claude suggests 2 changes in “Trip plan”:\n1. “a” → “b”\nReply “accept 1”, “reject 2” or “accept all”.',
      `accept ${'1 '.repeat(80)}`,
    ])
      expect(parseApprovalCommand(body), body).toBeUndefined()
  })
})
