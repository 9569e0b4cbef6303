import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createRedactor } from '../redact/redactor.ts'
import { chatStem } from './chat-state.ts'
import {
  findSavedOutput,
  rawOutputPath,
  redactInWindows,
  removeRawOutputs,
  saveRedactedOutput,
  savedOutputPath,
  windowCut,
} from './saved-output.ts'

const SECRET = 'zz-known-env-secret-value-31337'
const redactor = createRedactor({ env: { DEPLOY_TOKEN: SECRET } })
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK',
  '-----END RSA PRIVATE KEY-----',
].join('\n')

let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

describe('redacting a saved output in windows', () => {
  it('cuts a window after its last newline, and before a private-key block it opens without closing', () => {
    expect(windowCut('one\ntwo\nthr', false)).toBe(8)
    expect(windowCut('one\ntwo\nthr', true)).toBe(11)
    expect(windowCut('no newline at all', false)).toBe(17)
    const open = `a\nb\n${PEM.split('\n').slice(0, 2).join('\n')}\n`
    expect(windowCut(open, false)).toBe(4)
    const closed = `a\n${PEM}\nafter\npart`
    expect(windowCut(closed, false)).toBe(closed.length - 'part'.length)
  })

  it('masks a secret and a private key whatever window boundary falls inside them', async () => {
    const text = `${'filler line\n'.repeat(7)}token ${SECRET} here\n${PEM}\n${'tail\n'.repeat(5)}`
    for (const window of [250, 300, 400, 1000]) {
      const out = await redactInWindows(text, redactor, window)
      expect(out, `window ${window}`).not.toContain(SECRET)
      expect(out, `window ${window}`).not.toContain('MIIEowIBAAKCAQEAu1SU1')
      expect(out).toContain('filler line\n')
      expect(out.endsWith('tail\n')).toBe(true)
    }
  })

  it('writes the redacted file 0600 with multi-byte characters intact across reads, and removes the raw one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'e2e-col-saved-'))
    const raw = join(dir, 'x.output.raw')
    const dest = join(dir, 'x.output.txt')
    const lines = Array.from({ length: 200 }, (_, i) => (i === 120 ? `secret ${SECRET}\n` : `ünïcødé ${i} — ✓\n`))
    writeFileSync(raw, `${lines.join('')}${PEM}\nend`)
    const bytes = await saveRedactedOutput(raw, dest, redactor, 300)
    const out = readFileSync(dest, 'utf8')
    expect(bytes).toBe(Buffer.byteLength(out))
    expect(out).not.toContain(SECRET)
    expect(out).not.toContain('MIIEowIBAAKCAQEAu1SU1')
    expect(out).toContain('ünïcødé 119 — ✓\nsecret [REDACTED:')
    expect(out).not.toContain('\uFFFD')
    expect(out.endsWith('\nend')).toBe(true)
    expect(statSync(dest).mode & 0o777).toBe(0o600)
    expect(existsSync(raw)).toBe(false)
  })
})

describe('saved outputs of a chat', () => {
  it("finds the latest or the asked turn of this chat only, and removes only this chat's raw spills", () => {
    dir = mkdtempSync(join(tmpdir(), 'e2e-col-saved-'))
    const root = dir
    const ours = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
    const theirs = 'QnB+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
    const stem = chatStem(root, ours)
    expect(findSavedOutput(root, ours)).toBeUndefined()
    writeFileSync(savedOutputPath(root, ours, 3), 'three')
    writeFileSync(savedOutputPath(root, ours, 12), 'twelve!')
    writeFileSync(savedOutputPath(root, theirs, 40), 'not ours')
    writeFileSync(`${stem}.turn-13.reply.txt`, 'a reply, not an output')
    writeFileSync(rawOutputPath(root, ours, 13), 'raw')
    writeFileSync(rawOutputPath(root, theirs, 41), 'raw')
    expect(findSavedOutput(root, ours)).toEqual({ turn: 12, file: savedOutputPath(root, ours, 12), bytes: 7 })
    expect(findSavedOutput(root, ours, 3)).toEqual({ turn: 3, file: savedOutputPath(root, ours, 3), bytes: 5 })
    expect(findSavedOutput(root, ours, 4)).toBeUndefined()
    expect(removeRawOutputs(root, ours)).toEqual([rawOutputPath(root, ours, 13)])
    expect(existsSync(rawOutputPath(root, ours, 13))).toBe(false)
    expect(existsSync(rawOutputPath(root, theirs, 41))).toBe(true)
  })
})
