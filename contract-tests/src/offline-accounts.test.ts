import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { offlineAccountsSupport } from './offline-accounts.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fake Java home whose `bin/java -version` prints `banner`, with the given extra tools. */
function fakeJava(banner: string, tools: readonly string[]): { root: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'jvm-'))
  dirs.push(root)
  const home = join(root, 'jdk')
  mkdirSync(join(home, 'bin'), { recursive: true })
  for (const tool of ['java', ...tools]) {
    writeFileSync(join(home, 'bin', tool), `#!/bin/sh\necho '${banner}' >&2\n`)
    chmodSync(join(home, 'bin', tool), 0o755)
  }
  return { root, home }
}

describe('offlineAccountsSupport', () => {
  it('needs Java 24+ for the agent, though signal-cli itself runs on 21', () => {
    const { root } = fakeJava('openjdk version "21.0.2" 2024-01-16', ['javac', 'jar'])
    const support = offlineAccountsSupport({}, root)
    expect(support.available).toBe(false)
    if (!support.available) expect(support.reason).toMatch(/Java 24\+ \(java\.lang\.classfile\); found Java 21/)
  })

  it('needs javac and jar: a JRE cannot compile the fixture', () => {
    const { root, home } = fakeJava('openjdk version "25" 2025-09-16', ['jar'])
    const support = offlineAccountsSupport({}, root)
    expect(support).toEqual({
      available: false,
      reason: `the offline-accounts fixture is compiled at test time; ${home} is a JRE without javac`,
    })
  })

  it('takes a full JDK 24+', () => {
    const { root, home } = fakeJava('openjdk version "25" 2025-09-16', ['javac', 'jar'])
    expect(offlineAccountsSupport({}, root)).toEqual({ available: true, javaHome: home, major: 25 })
  })
})
