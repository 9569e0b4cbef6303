import { describe, expect, it } from 'vitest'
import { javaInstallHint, parseOsRelease, type OsRelease } from './java-hint.ts'

const os = (id: string, version: string, like: string[] = []): OsRelease => ({ id, version, like })

describe('the Java 21 hint names what works on the detected system', () => {
  it('Debian 12 (no openjdk-21 package): the Temurin packages or a tarball, never openjdk-21', () => {
    const hint = javaInstallHint('linux', os('debian', '12'))
    expect(hint).toContain('Debian 12 has no Java 21 package')
    expect(hint).toContain('`sudo apt install temurin-21-jre`')
    expect(hint).toMatch(/tarball .* JAVA_HOME/)
    expect(hint).not.toContain('openjdk-21')
  })

  it('Debian 11 too; Debian 13 and testing (no VERSION_ID) have openjdk-21', () => {
    expect(javaInstallHint('linux', os('debian', '11'))).toContain('temurin-21-jre')
    expect(javaInstallHint('linux', os('debian', '13'))).toContain('`sudo apt install openjdk-21-jre-headless`')
    expect(javaInstallHint('linux', os('debian', ''))).toContain('`sudo apt install openjdk-21-jre-headless`')
  })

  it('Ubuntu 22.04 and later have openjdk-21; 20.04 gets Temurin', () => {
    expect(javaInstallHint('linux', os('ubuntu', '24.04'))).toContain('`sudo apt install openjdk-21-jre-headless`')
    expect(javaInstallHint('linux', os('ubuntu', '22.04'))).toContain('`sudo apt install openjdk-21-jre-headless`')
    expect(javaInstallHint('linux', os('ubuntu', '20.04'))).toContain('temurin-21-jre')
  })

  it('a Debian derivative is told both, in order', () => {
    const hint = javaInstallHint('linux', os('raspbian', '12', ['debian']))
    expect(hint).toMatch(/openjdk-21-jre-headless.*where your release has it.*temurin-21-jre/)
  })

  it('Fedora and RHEL-likes, Arch, Alpine and openSUSE get their own package manager', () => {
    expect(javaInstallHint('linux', os('fedora', '41'))).toContain('`sudo dnf install java-21-openjdk-headless`')
    expect(javaInstallHint('linux', os('rocky', '9.4', ['rhel', 'centos', 'fedora']))).toContain('dnf install')
    expect(javaInstallHint('linux', os('arch', ''))).toContain('`sudo pacman -S jre21-openjdk-headless`')
    expect(javaInstallHint('linux', os('alpine', '3.20'))).toContain('`sudo apk add openjdk21-jre-headless`')
    expect(javaInstallHint('linux', os('opensuse-leap', '15.6', ['suse', 'opensuse']))).toContain('zypper install')
  })

  it('an unknown Linux, or none detected: the tarball path, with no command that may not exist', () => {
    for (const hint of [javaInstallHint('linux', os('gentoo', '2.15')), javaInstallHint('linux')]) {
      expect(hint).toMatch(/tarball .* JAVA_HOME/)
      expect(hint).not.toMatch(/sudo /)
    }
  })

  it('macOS and Windows: Temurin through their package managers', () => {
    expect(javaInstallHint('darwin')).toContain('`brew install --cask temurin@21`')
    expect(javaInstallHint('win32')).toContain('`winget install EclipseAdoptium.Temurin.21.JDK`')
  })
})

describe('os-release', () => {
  it('reads quoted and bare values, ID_LIKE as words', () => {
    const text = [
      'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"',
      'NAME="Debian GNU/Linux"',
      'VERSION_ID="12"',
      'ID=debian',
      "ID_LIKE='ubuntu  Debian'",
      '# a comment',
      'garbage line',
    ].join('\n')
    expect(parseOsRelease(text)).toEqual({ id: 'debian', version: '12', like: ['ubuntu', 'debian'] })
  })

  it('reads an empty or foreign file as nothing known', () => {
    expect(parseOsRelease('')).toEqual({ id: '', version: '', like: [] })
    expect(javaInstallHint('linux', parseOsRelease('\u0000\u0001'))).toMatch(/tarball/)
  })
})
