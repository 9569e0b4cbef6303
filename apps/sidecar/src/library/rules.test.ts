import { describe, expect, it } from 'vitest'
import { checkHost } from '../http/guard.ts'
import { docIdForGroup } from './doc-id.ts'
import { checkTitle, documentDescription, isDocumentGroup, isPhoneNumber } from '../group/group-tag.ts'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

describe('the document id rule', () => {
  it('derives one version-8 UUID per group id, the same on every machine', () => {
    // Golden value, computed apart (Python hashlib) from the rule in docs/documents.md §1.2: a change
    // to the rule would change every member's document ids.
    expect(docIdForGroup(GROUP)).toBe('1e63a9c7-2564-8a0a-bf3a-91899b092bfb')
    expect(docIdForGroup(GROUP)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(docIdForGroup('AAAAAAAAAAAAAAAAAAAAAA==')).not.toBe(docIdForGroup(GROUP))
  })
})

describe('document groups and titles', () => {
  it('recognises the tag in a description, and nothing else', () => {
    expect(isDocumentGroup(documentDescription())).toBe(true)
    expect(documentDescription()).toMatch(/^e2e-col sync: mute me\./)
    expect(isDocumentGroup('e2e-col sync: mute me.')).toBe(false)
    expect(isDocumentGroup(null)).toBe(false)
  })

  it('counts title characters as people see them and refuses empty, long and control-character titles', () => {
    expect(checkTitle('  Trip plan ')).toEqual({ ok: true, title: 'Trip plan' })
    expect(checkTitle('é'.normalize('NFD').repeat(32)).ok).toBe(true)
    expect(checkTitle('x'.repeat(33))).toEqual({ ok: false, problem: 'too-long' })
    expect(checkTitle('  ')).toEqual({ ok: false, problem: 'empty' })
    expect(checkTitle('a\nb')).toEqual({ ok: false, problem: 'control' })
    expect(checkTitle('a\u007fb')).toEqual({ ok: false, problem: 'control' })
    expect(checkTitle('a\u0085b')).toEqual({ ok: false, problem: 'control' })
    expect(checkTitle('a\u00a0b')).toEqual({ ok: true, title: 'a\u00a0b' })
    expect([isPhoneNumber('+15555550102'), isPhoneNumber('15555550102'), isPhoneNumber('+1 555')]).toEqual([
      true,
      false,
      false,
    ])
  })
})

describe('the Host check', () => {
  const bind = { host: '127.0.0.1', port: 7601 }
  const ok = (host: string | undefined, b = bind): boolean => {
    try {
      checkHost(host, b)
      return true
    } catch {
      return false
    }
  }
  it('accepts loopback names and the bind host on the listening port only', () => {
    expect(['127.0.0.1:7601', 'localhost:7601', 'LOCALHOST:7601', '[::1]:7601'].map((h) => ok(h))).toEqual([
      true,
      true,
      true,
      true,
    ])
    expect(
      ['127.0.0.1:7602', 'evil.example:7601', 'evil.example', '127.0.0.1', '', 'localhost.evil:7601'].map((h) => ok(h)),
    ).toEqual([false, false, false, false, false, false])
    expect(ok(undefined)).toBe(false)
    expect(ok('sidecar.lan:7601', { host: 'sidecar.lan', port: 7601 })).toBe(true)
  })
})
