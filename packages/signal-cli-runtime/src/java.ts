/**
 * Finding a Java 21+ runtime for signal-cli 0.13.x (0.14.x needs 25): JAVA_HOME first, then the
 * `java` on PATH, then the platform's usual JDK folders; the newest qualifying one wins.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'

/** Where Java was found, or why not (`reason` lists every candidate tried). */
export type JavaLookup = { found: true; javaHome: string; major: number } | { found: false; reason: string }

/** The lowest Java major signal-cli 0.13.x runs on. */
export const MIN_JAVA_MAJOR = 21

/** The Java major version `JAVA_HOME/bin/java -version` reports, or undefined when it does not run. */
export function javaMajor(javaHome: string): number | undefined {
  const run = spawnSync(join(javaHome, 'bin', 'java'), ['-version'], { encoding: 'utf8', timeout: 10_000 })
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${run.stderr ?? ''}${run.stdout ?? ''}`)
  if (match?.[1] === undefined) return undefined
  // Java 8 and older report "1.8"; the major is then the second number.
  return match[1] === '1' ? Number(match[2]) : Number(match[1])
}

/**
 * The folders that hold JDKs (each entry a folder of JAVA_HOMEs): `E2E_COL_JVM_DIRS` (PATH-style
 * list) when set, else the platform's usual ones.
 */
export function jvmFolders(platform: NodeJS.Platform, env: Record<string, string | undefined> = {}): string[] {
  const listed = env['E2E_COL_JVM_DIRS']
  if (listed !== undefined) return listed.split(delimiter).filter((d) => d !== '')
  if (platform === 'darwin') return ['/Library/Java/JavaVirtualMachines', '/opt/homebrew/opt', '/usr/local/opt']
  if (platform === 'win32')
    return ['C:\\Program Files\\Eclipse Adoptium', 'C:\\Program Files\\Java', 'C:\\Program Files\\Microsoft']
  return ['/usr/lib/jvm']
}

function homesUnder(folder: string): string[] {
  try {
    return readdirSync(folder).map((entry) => {
      const home = join(folder, entry)
      // macOS bundles keep the home two levels down; Homebrew kegs under libexec/openjdk.jdk.
      for (const inner of [join(home, 'Contents', 'Home'), join(home, 'libexec', 'openjdk.jdk', 'Contents', 'Home')]) {
        if (existsSync(join(inner, 'bin', 'java'))) return inner
      }
      return home
    })
  } catch {
    return []
  }
}

/** JAVA_HOME of the `java` found on PATH (through symlinks such as /usr/bin/java → alternatives). */
function pathJavaHome(env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, process.platform === 'win32' ? 'java.exe' : 'java')
    if (!existsSync(candidate)) continue
    try {
      return dirname(dirname(realpathSync(candidate)))
    } catch {
      return undefined
    }
  }
  return undefined
}

function describe(home: string, major: number | undefined): string {
  return `${home}: ${major === undefined ? 'no working bin/java' : `Java ${major}`}`
}

/**
 * JAVA_HOME when it is 21+; else the newest 21+ runtime among the `java` on PATH and the JDK folders
 * (`jvmDirs`, default the platform's usual ones).
 */
export function findJava21(
  env: Record<string, string | undefined>,
  jvmDirs: string | readonly string[] = jvmFolders(process.platform),
): JavaLookup {
  const tried: string[] = []
  const javaHome = env['JAVA_HOME']
  if (javaHome !== undefined && javaHome !== '') {
    const major = javaMajor(javaHome)
    if (major !== undefined && major >= MIN_JAVA_MAJOR) return { found: true, javaHome, major }
    tried.push(`JAVA_HOME=${describe(javaHome, major)}`)
  }
  const folders = typeof jvmDirs === 'string' ? [jvmDirs] : jvmDirs
  const candidates = [
    ...new Set(
      [pathJavaHome(env), ...folders.flatMap(homesUnder)].filter((h): h is string => h !== undefined && h !== javaHome),
    ),
  ]
  let best: { javaHome: string; major: number } | undefined
  for (const home of candidates) {
    const major = javaMajor(home)
    tried.push(describe(home, major))
    if (major !== undefined && major >= MIN_JAVA_MAJOR && (best === undefined || major > best.major))
      best = { javaHome: home, major }
  }
  if (best !== undefined) return { found: true, ...best }
  return {
    found: false,
    reason: `signal-cli needs Java ${MIN_JAVA_MAJOR}+, none found (${tried.join('; ') || 'no candidates'})`,
  }
}
