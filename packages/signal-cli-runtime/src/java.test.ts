import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir, writeScript } from '../test/fixtures.ts'
import { findJava21 } from './java.ts'

/** A fake JDK whose `bin/java -version` prints the given banner on stderr, as real ones do. */
function fakeJdk(root: string, name: string, banner: string): string {
  const home = join(root, name)
  writeScript(join(home, 'bin', 'java'), `echo '${banner}' >&2`)
  return home
}

describe('findJava21', () => {
  it('prefers the newest 21+ JDK of the JVM directory when JAVA_HOME is too old', () => {
    const root = tempDir('jvm-')
    const old = fakeJdk(root, 'jdk-17', 'openjdk version "17.0.9" 2023-10-17')
    fakeJdk(root, 'jdk-21', 'openjdk version "21.0.2" 2024-01-16')
    const newest = fakeJdk(root, 'jdk-25', 'openjdk version "25" 2025-09-16')
    fakeJdk(root, 'jdk-8', 'openjdk version "1.8.0_392"')
    expect(findJava21({ JAVA_HOME: old }, root)).toEqual({ found: true, javaHome: newest, major: 25 })
  })

  it('takes JAVA_HOME when it is 21 or newer', () => {
    const root = tempDir('jvm-')
    const home = fakeJdk(root, 'jdk-21', 'openjdk version "21.0.2" 2024-01-16')
    expect(findJava21({ JAVA_HOME: home }, join(root, 'missing'))).toMatchObject({
      found: true,
      javaHome: home,
      major: 21,
    })
  })

  it('takes the java on PATH (through its symlink) when it is 21+', () => {
    const root = tempDir('jvm-')
    const home = fakeJdk(root, 'jdk-22', 'openjdk version "22.0.1" 2024-04-16')
    mkdirSync(join(root, 'usr-bin'))
    symlinkSync(join(home, 'bin', 'java'), join(root, 'usr-bin', 'java'))
    expect(findJava21({ PATH: join(root, 'usr-bin') }, join(root, 'missing'))).toEqual({
      found: true,
      javaHome: home,
      major: 22,
    })
  })

  it('explains what it tried when no Java 21+ exists', () => {
    const root = tempDir('jvm-')
    fakeJdk(root, 'jdk-17', 'openjdk version "17.0.9" 2023-10-17')
    const lookup = findJava21({}, root)
    expect(lookup.found).toBe(false)
    if (!lookup.found) expect(lookup.reason).toMatch(/needs Java 21\+.*Java 17/)
  })
})
