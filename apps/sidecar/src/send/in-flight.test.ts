import { describe, expect, it } from 'vitest'
import { createInFlight } from './in-flight.ts'

function recorder() {
  const acks: string[] = []
  const rejects: string[] = []
  return { acks, rejects, owner: { ack: (id: string) => acks.push(id), reject: (id: string, code: string) => rejects.push(`${id}:${code}`) } }
}

describe('in-flight message ids', () => {
  it('queues an id once and acks every owner that claimed it', () => {
    const f = createInFlight()
    const [a, b] = [recorder(), recorder()]
    const queued = f.claim('m1', a.owner)
    expect(f.claim('m1', b.owner)).toBeUndefined()
    queued?.ack('m1')
    expect([a.acks, b.acks]).toEqual([['m1'], ['m1']])
    expect(f.size).toBe(0)
  })

  it('rejects every owner, and a released id can be claimed afresh', () => {
    const f = createInFlight()
    const [a, b] = [recorder(), recorder()]
    f.claim('m1', a.owner)?.reject('m1', 'SIDECAR_SEND_REJECTED', 'no')
    expect(a.rejects).toEqual(['m1:SIDECAR_SEND_REJECTED'])
    f.claim('m2', a.owner)
    f.release(['m2'])
    f.claim('m2', b.owner)?.ack('m2')
    expect(b.acks).toEqual(['m2'])
  })
})
