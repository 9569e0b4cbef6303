import { describe, expect, it } from 'vitest'
import { ACCEPTANCES_KEPT, openOwnAcceptances } from './own-acceptances.ts'

const DOC = '00000000-0000-4000-8000-000000000001'
const OTHER = '00000000-0000-4000-8000-000000000002'

function memoryFile(text?: string) {
  const f = { text, writes: 0 }
  return { f, file: { read: () => f.text, write: (t: string) => void ((f.text = t), (f.writes += 1)) } }
}

describe("this sidecar's own acceptances", () => {
  it('are written before they are kept, and read back after a restart', () => {
    const { f, file } = memoryFile()
    const a = openOwnAcceptances(file)
    a.record(DOC, 's1', { client: 7, clock: 0, len: 12 })
    a.record(OTHER, 's2', { client: 8, clock: 3, len: 4 })
    expect(f.writes).toBe(2)
    const again = openOwnAcceptances(file)
    expect(again.mine(DOC, 's1')).toEqual({ client: 7, clock: 0, len: 12 })
    expect(again.suggestions(DOC)).toEqual(['s1'])
    expect(again.mine(DOC, 's2')).toBeUndefined()
  })

  it('a failed write keeps nothing (the acceptance is then not applied either)', () => {
    const a = openOwnAcceptances({
      read: () => undefined,
      write: () => {
        throw new Error('disk full')
      },
    })
    expect(() => a.record(DOC, 's1', { client: 7, clock: 0, len: 12 })).toThrow('disk full')
    expect(a.mine(DOC, 's1')).toBeUndefined()
  })

  it('keeps the newest ACCEPTANCES_KEPT; a file that does not read holds none', () => {
    const { f, file } = memoryFile()
    const a = openOwnAcceptances(file)
    for (let i = 0; i <= ACCEPTANCES_KEPT; i += 1) a.record(DOC, `s${i}`, { client: i, clock: 0, len: 1 })
    expect(a.mine(DOC, 's0')).toBeUndefined()
    expect(a.mine(DOC, `s${ACCEPTANCES_KEPT}`)).toEqual({ client: ACCEPTANCES_KEPT, clock: 0, len: 1 })
    expect(JSON.parse(f.text ?? '[]')).toHaveLength(ACCEPTANCES_KEPT)
    expect(openOwnAcceptances(memoryFile('[["x"').file).suggestions(DOC)).toEqual([])
    expect(openOwnAcceptances(memoryFile('[["d","s",-1,0,1]]').file).suggestions('d')).toEqual([])
  })
})
