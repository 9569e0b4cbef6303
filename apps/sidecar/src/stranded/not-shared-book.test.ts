import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  bounded,
  MAX_NOT_SHARED_BYTES,
  NOT_SHARED_FILE,
  notSharedView,
  openNotSharedBook,
  type NotSharedEdit,
} from './not-shared-book.ts'

const folder = () => mkdtempSync(join(tmpdir(), 'not-shared-'))
const edit = (text: string, at = 1): NotSharedEdit => ({ reason: 'unsent', text, at })
const names = (n: string) => (n === '+15550000001' ? 'Alice' : n)
const bytes = (edits: readonly NotSharedEdit[]) => edits.reduce((n, e) => n + Buffer.byteLength(e.text), 0)

describe('edits not shared', () => {
  it('keeps at most MAX_NOT_SHARED_BYTES of text per document, the oldest dropped first', () => {
    const big = 'a'.repeat(MAX_NOT_SHARED_BYTES / 4)
    const edits = [edit(`1${big}`), edit(`2${big}`), edit(`3${big}`), edit(`4${big}`), edit(`5${big}`)]
    const kept = bounded(edits)
    expect(bytes(kept)).toBeLessThanOrEqual(MAX_NOT_SHARED_BYTES)
    expect(kept.map((e) => e.text[0])).toEqual(['3', '4', '5'])
  })

  it('keeps the first bytes of one edit over the bound, marked cut, never half a character', () => {
    const [kept] = bounded([edit('é'.repeat(MAX_NOT_SHARED_BYTES))])
    expect(kept?.cut).toBe(true)
    expect(Buffer.byteLength(kept?.text ?? '')).toBe(MAX_NOT_SHARED_BYTES)
    expect(kept?.text).toBe('é'.repeat(MAX_NOT_SHARED_BYTES / 2))
  })

  it('survives a reopen (a restart), and replaces only the edits of the same demotion', () => {
    const dir = folder()
    const book = openNotSharedBook(dir, () => 42)
    book.put('d1', 1, [edit('first', 1)])
    book.put('d1', 2, [edit('second', 2)])
    book.put('d1', 1, [edit('first, settled', 1)])
    book.setRejoinPending('d1', 2)
    const again = openNotSharedBook(dir, () => 7)
    expect(again.list('d1').map((e) => e.text)).toEqual(['second', 'first, settled'])
    expect(again.rejoinPending('d1')).toBe(2)
    again.setRejoinPending('d1', undefined)
    const third = openNotSharedBook(dir)
    expect([third.rejoinPending('d1'), third.rejoinedAt('d1')]).toEqual([undefined, 7])
    expect(third.list('d2')).toEqual([])
  })

  it('keeps the role each listing gave across a reopen, the roles of one listing in one write', async () => {
    const dir = folder()
    const book = openNotSharedBook(dir)
    book.noteRole('d1', 'editor')
    book.noteRole('d2', 'viewer')
    expect(book.lastRole('d1')).toBe('editor')
    await new Promise((resolve) => setImmediate(resolve))
    const written = JSON.parse(readFileSync(join(dir, NOT_SHARED_FILE), 'utf8')) as { roles: unknown }
    expect(written.roles).toEqual({ d1: 'editor', d2: 'viewer' })
    const again = openNotSharedBook(dir)
    expect([again.lastRole('d1'), again.lastRole('d2'), again.lastRole('d3')]).toEqual(['editor', 'viewer', undefined])
  })

  it('refuses to start over a file that does not parse, with the store error code', () => {
    const dir = folder()
    writeFileSync(join(dir, NOT_SHARED_FILE), '{not json')
    expect(() => openNotSharedBook(dir)).toThrow(expect.objectContaining({ code: 'SIDECAR_STORE_FAILED' }))
    expect(readFileSync(join(dir, NOT_SHARED_FILE), 'utf8')).toBe('{not json')
  })

  it('shows each edit with the role and the told-apart name of who made it, the demotion only while its role holds', () => {
    const dir = folder()
    const book = openNotSharedBook(dir, () => 9)
    book.putDemotion('d1', { at: 1, role: 'commenter', by: '+15550000001' })
    book.put('d1', 1, [edit('kept', 1)])
    const again = openNotSharedBook(dir)
    expect(notSharedView(again, 'd1', 'commenter', names)).toMatchObject({
      edits: [{ reason: 'unsent', text: 'kept', at: 1, role: 'commenter', by: 'Alice' }],
      demotion: { role: 'commenter', at: 1, by: 'Alice' },
    })
    expect(notSharedView(again, 'd1', 'editor', names).demotion).toBeUndefined()
    expect(JSON.stringify(notSharedView(again, 'd1', 'commenter', names))).not.toContain('+1555')
  })
})
