/**
 * What to install for Java 21+, as commands that work on the detected system: the platform, and on
 * Linux the distribution and release read from /etc/os-release (package names differ per
 * distribution, and some releases have no Java 21 package at all: Debian 12 has 17).
 */
import { readFileSync } from 'node:fs'

/** The fields of os-release(5) the hint uses. */
export interface OsRelease {
  /** `ID`, e.g. debian, ubuntu, fedora, arch, alpine, opensuse-leap. */
  readonly id: string
  /** `ID_LIKE`, split on spaces, e.g. ["debian"] on Raspberry Pi OS or ["rhel", "centos", "fedora"]. */
  readonly like: readonly string[]
  /** `VERSION_ID`, e.g. "12", "24.04"; empty on rolling releases. */
  readonly version: string
}

/** Parses os-release(5) text (KEY=value lines, values optionally quoted). */
export function parseOsRelease(text: string): OsRelease {
  const fields = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))\s*$/.exec(line.trim())
    if (match?.[1] !== undefined) fields.set(match[1], match[2] ?? match[3] ?? match[4] ?? '')
  }
  return {
    id: (fields.get('ID') ?? '').toLowerCase(),
    like: (fields.get('ID_LIKE') ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== ''),
    version: fields.get('VERSION_ID') ?? '',
  }
}

/** This machine's os-release, or undefined where there is none (macOS, Windows, minimal images). */
export function readOsRelease(): OsRelease | undefined {
  for (const path of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      return parseOsRelease(readFileSync(path, 'utf8'))
    } catch {
      // try the next one
    }
  }
  return undefined
}

const TEMURIN_TARBALL =
  'or unpack a Java 21 tarball from https://adoptium.net/temurin/releases/?version=21 and point JAVA_HOME at its folder'
const AGAIN = ', then run this again'

const major = (version: string): number => Number.parseFloat(version) || 0

/** Debian and Ubuntu: openjdk-21 where the release has it, else Adoptium's Temurin packages. */
function debianFamily(os: OsRelease): string | undefined {
  const temurin =
    "add Adoptium's apt repository (https://adoptium.net/installation/linux/#deb-installation-on-debian-or-ubuntu) and `sudo apt install temurin-21-jre`"
  if (os.id === 'debian') {
    // Debian 13 (trixie) ships openjdk-21; 12 (bookworm) and older stop at 17. Testing/sid: no VERSION_ID.
    if (os.version !== '' && major(os.version) < 13)
      return `Debian ${os.version} has no Java 21 package: ${temurin}, ${TEMURIN_TARBALL}`
    return '`sudo apt install openjdk-21-jre-headless`'
  }
  if (os.id === 'ubuntu') {
    if (major(os.version) < 22.04) return `Ubuntu ${os.version} has no Java 21 package: ${temurin}, ${TEMURIN_TARBALL}`
    return '`sudo apt install openjdk-21-jre-headless`'
  }
  if (os.like.includes('debian') || os.like.includes('ubuntu'))
    return `\`sudo apt install openjdk-21-jre-headless\` where your release has it; otherwise ${temurin}, ${TEMURIN_TARBALL}`
  return undefined
}

function linuxCommand(os: OsRelease): string | undefined {
  const debian = debianFamily(os)
  if (debian !== undefined) return debian
  const family = [os.id, ...os.like]
  if (family.includes('fedora') || family.includes('rhel') || family.includes('centos'))
    return '`sudo dnf install java-21-openjdk-headless`'
  if (family.includes('arch')) return '`sudo pacman -S jre21-openjdk-headless`'
  if (family.includes('alpine')) return '`sudo apk add openjdk21-jre-headless`'
  if (family.includes('suse') || family.includes('opensuse')) return '`sudo zypper install java-21-openjdk-headless`'
  return undefined
}

/**
 * What to install for Java 21 or newer on `platform` (and, on Linux, the distribution `os`), as
 * commands a person can paste.
 */
export function javaInstallHint(platform: NodeJS.Platform, os?: OsRelease): string {
  if (platform === 'darwin')
    return `install Java 21 or newer: \`brew install --cask temurin@21\` (or download Temurin 21 from https://adoptium.net)${AGAIN}`
  if (platform === 'win32')
    return `install Java 21 or newer: \`winget install EclipseAdoptium.Temurin.21.JDK\` (or download Temurin 21 from https://adoptium.net)${AGAIN}`
  const command = os === undefined ? undefined : linuxCommand(os)
  if (command !== undefined) return `install Java 21 or newer: ${command}; or point JAVA_HOME at one${AGAIN}`
  return `install Java 21 or newer with your system's packages (Java 21 is openjdk-21 or temurin-21 in most of them), ${TEMURIN_TARBALL}${AGAIN}`
}
