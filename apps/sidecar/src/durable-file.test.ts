import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keptFile } from './durable-file.ts'
import { StoreError } from './errors.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'kept-file-'))
  dirs.push(d)
  return d
}

describe('a kept file', () => {
  it('reads nothing before its first write, then what was written last, with no temporary file left', () => {
    const dir = folder()
    const file = keptFile(join(dir, 'kept.json'), 'the test list')
    expect(file.read()).toBeUndefined()
    file.write('one')
    file.write('two')
    expect(file.read()).toBe('two')
    expect(readFileSync(join(dir, 'kept.json'), 'utf8')).toBe('two')
    expect(() => readFileSync(join(dir, 'kept.json.tmp'))).toThrow(/ENOENT/)
  })

  it('fails a read it cannot make as a StoreError naming the file and what it holds', () => {
    const dir = folder()
    const path = join(dir, 'kept.json')
    mkdirSync(path)
    const e = (() => {
      try {
        keptFile(path, 'the test list').read()
      } catch (error) {
        return error
      }
      return undefined
    })()
    expect(e).toBeInstanceOf(StoreError)
    expect(e).toMatchObject({ code: 'SIDECAR_STORE_FAILED', path })
    expect((e as Error).message).toBe(`replica store ${path}: cannot read the test list`)
    expect((e as Error).cause).toMatchObject({ code: 'EISDIR' })
  })

  it('fails a write it cannot make as a StoreError, the old text kept', () => {
    const dir = folder()
    const path = join(dir, 'kept.json')
    const file = keptFile(path, 'the test list')
    file.write('kept')
    mkdirSync(`${path}.tmp`)
    expect(() => file.write('lost')).toThrow(StoreError)
    expect(() => file.write('lost')).toThrow(`replica store ${path}: cannot write the test list`)
    expect(file.read()).toBe('kept')
  })
})
