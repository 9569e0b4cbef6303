import { describe, expect, it } from 'vitest'
import { auditSource } from './origin.ts'

describe('audit sources', () => {
  it('name the topic, a console, or the Signal sender with device and timestamp', () => {
    expect(auditSource(undefined)).toEqual({ sender: 'topic', device: undefined, signalTimestamp: undefined })
    expect(auditSource({ kind: 'console', ref: 'r' })).toEqual({
      sender: 'console',
      device: undefined,
      signalTimestamp: undefined,
    })
    expect(auditSource({ kind: 'signal', author: '+15550000002', timestamp: 7, device: 2 })).toEqual({
      sender: '+15550000002',
      device: 2,
      signalTimestamp: 7,
    })
  })
})
