/**
 * `npm run mutate [-- [--force] <folder>...]`: Stryker over each folder of MUTATE_FOLDERS (or the ones
 * named), one after another, niced, two test processes at most (E2E_COL_MUTATE_CONCURRENCY=1 for
 * one). Prints each folder's score and writes .mutation/summary.json. Not part of `npm test`.
 * `npm run mutate -- [--force] --only <file>` mutates one source file of a folder against all of
 * that folder's tests (the same verdicts as the folder run gives that file's mutants), with its own
 * results under .mutation/<folder>--<file>/; summary.json is not touched. `--only <file>:<from>-<to>`
 * mutates those lines only.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { MUTATE_FOLDERS, slug, type MutateFolder } from './folders.ts'

// `--force` is handed to Stryker: every mutant is run again, ignoring the incremental results.
const force = process.argv.includes('--force')
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1]
// A file, or a line range of it (Stryker's `file.ts:10-40`): what one test's mutants need re-running.
if (onlyAt !== -1 && (only === undefined || !/\.ts(:\d+-\d+)?$/.test(only))) {
  console.error('--only needs a source file, e.g. --only apps/chat/src/loop/turn-worker.ts (or …/turn-worker.ts:10-40)')
  process.exit(2)
}
const asked =
  only === undefined
    ? process.argv
        .slice(2)
        .filter((a) => a !== '--force')
        .map((f) => f.replace(/\/+$/, ''))
    : MUTATE_FOLDERS.filter((m) => only.startsWith(`${m.folder}/`)).map((m) => m.folder)
if (only !== undefined && asked.length === 0) {
  console.error(`${only} is in none of: ${MUTATE_FOLDERS.map((m) => m.folder).join(', ')}`)
  process.exit(2)
}
const unknown = asked.filter((f) => !MUTATE_FOLDERS.some((m) => m.folder === f))
if (unknown.length > 0) {
  console.error(
    `not a mutation folder: ${unknown.join(', ')}; one of: ${MUTATE_FOLDERS.map((m) => m.folder).join(', ')}`,
  )
  process.exit(2)
}
const folders = asked.length === 0 ? MUTATE_FOLDERS : MUTATE_FOLDERS.filter((m) => asked.includes(m.folder))

interface Score {
  folder: string
  killed: number
  timeout: number
  survived: number
  noCoverage: number
  errors: number
  total: number
  score: number
  survivors: string[]
}

function run(m: MutateFolder): Score {
  const s = only === undefined ? slug(m.folder) : `${slug(m.folder)}--${slug(only.slice(m.folder.length + 1))}`
  mkdirSync(`.mutation/${s}`, { recursive: true })
  const result = spawnSync(
    'nice',
    [
      '-n',
      '10',
      'npx',
      'stryker',
      'run',
      'scripts/mutate/stryker.config.mjs',
      ...(force ? ['--force'] : []),
      ...(only === undefined ? [] : ['--mutate', only]),
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        E2E_COL_MUTATE_FOLDER: m.folder,
        E2E_COL_MUTATE_SLUG: s,
        E2E_COL_MUTATE_TESTS: m.tests.join(','),
      },
    },
  )
  if (result.status !== 0) throw new Error(`stryker failed on ${m.folder} (exit ${result.status ?? result.signal})`)
  const report = JSON.parse(readFileSync(`.mutation/${s}/report.json`, 'utf8')) as {
    files: Record<
      string,
      {
        mutants: { status: string; mutatorName: string; location: { start: { line: number } }; replacement?: string }[]
      }
    >
  }
  const score: Score = {
    folder: m.folder,
    killed: 0,
    timeout: 0,
    survived: 0,
    noCoverage: 0,
    errors: 0,
    total: 0,
    score: 0,
    survivors: [],
  }
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const mu of mutants) {
      if (mu.status === 'Killed') score.killed += 1
      else if (mu.status === 'Timeout') score.timeout += 1
      else if (mu.status === 'Survived' || mu.status === 'NoCoverage') {
        if (mu.status === 'Survived') score.survived += 1
        else score.noCoverage += 1
        score.survivors.push(
          `${file}:${mu.location.start.line} ${mu.mutatorName} → ${(mu.replacement ?? '').replaceAll(/\s+/g, ' ').slice(0, 80)}`,
        )
      } else {
        score.errors += 1
        continue
      }
      score.total += 1
    }
  }
  score.score = score.total === 0 ? 100 : (100 * (score.killed + score.timeout)) / score.total
  return score
}

const scores = folders.map(run)
if (only !== undefined) {
  for (const s of scores)
    console.log(
      `${only}: ${s.score.toFixed(1)} % killed (${s.killed} killed, ${s.timeout} timed out, ${s.survived} survived, ${s.noCoverage} not covered)`,
    )
  process.exit(0)
}
mkdirSync('.mutation', { recursive: true })
let summary: Record<string, Score> = {}
try {
  summary = JSON.parse(readFileSync('.mutation/summary.json', 'utf8')) as Record<string, Score>
} catch {
  // first run
}
for (const s of scores) summary[s.folder] = s
writeFileSync('.mutation/summary.json', JSON.stringify(summary, null, 2) + '\n')
for (const s of scores) {
  console.log(
    `${s.folder}: ${s.score.toFixed(1)} % killed (${s.killed} killed, ${s.timeout} timed out, ${s.survived} survived, ${s.noCoverage} not covered)`,
  )
}
