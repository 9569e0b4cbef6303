import { describe, expect, it } from 'vitest'
import { parseControl } from './control.ts'

describe('control phrases', () => {
  it.each(['status', 'STATUS', '  Status \n'])('%j asks for status', (t) => {
    expect(parseControl(t)).toEqual({ kind: 'status' })
  })
  it.each(['cancel', ' Cancel '])('%j cancels the running turn', (t) => {
    expect(parseControl(t)).toEqual({ kind: 'cancel' })
  })
  it('stop and kill both end the chat', () => {
    expect(parseControl(' STOP ')).toEqual({ kind: 'stop', phrase: 'stop' })
    expect(parseControl('kill')).toEqual({ kind: 'stop', phrase: 'kill' })
  })
  it('output asks for the latest saved output, output <n> for turn n', () => {
    expect(parseControl(' Output ')).toEqual({ kind: 'output', turn: undefined })
    expect(parseControl('output  12')).toEqual({ kind: 'output', turn: 12 })
  })
  it.each([
    'please stop the review',
    'output the diff',
    'output -1',
    'output 1234567890',
    'stop.',
    'status?',
    'cancel the last change',
    'kill -9 1234',
    's t o p',
  ])('%j is a prompt, passed verbatim', (t) => {
    expect(parseControl(t)).toEqual({ kind: 'prompt', text: t })
  })
})
