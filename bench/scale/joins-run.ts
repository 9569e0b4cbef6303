/**
 * The joins of issue #41 on their own: `npx tsx --conditions=@e2e-col/source bench/scale/joins-run.ts
 * [--bytes=10000000] [--frame-default] [--relink-again] [--phone-only=N] [--no-main]`. Builds the
 * sidecar as `npm run pack:packages` does (its sources under tsx when the build fails), runs the
 * member-added and relinked-device joins on it, and the fresh-client baselines, on the same
 * document; prints the table. The sidecars get the bench's environment (bench/stack.ts), whose
 * E2E_COL_MAX_FRAME_BYTES is 64 MiB. Further rows:
 * - `--frame-default`: the joins with E2E_COL_MAX_FRAME_BYTES at the sidecar's default (2 MiB);
 * - `--relink-again`: Alice's device linked a second time right after the first relink (Bob's
 *   per-asker spacing after a whole-document answer);
 * - `--phone-only=N`: the joins in a group with N more members who have no sidecar (a phone only),
 *   who announce no capabilities, so the group stays on the plain text path;
 * - `--no-main`: leaves out the two joins at the bench's bound.
 */
import { baselineJoin, buildJoinDoc, printJoins, sidecarJoin, type JoinRun } from './joins.ts'
import { buildSidecar } from './procs.ts'

const DEFAULT_BYTES = 10_000_000

function bytesOf(argv: readonly string[]): number {
  const given = argv.find((a) => a.startsWith('--bytes='))?.slice('--bytes='.length)
  const n = given === undefined ? DEFAULT_BYTES : Number(given)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--bytes must be a positive integer, not ${given ?? ''}`)
  return n
}

async function main(argv: readonly string[]): Promise<void> {
  const bytes = bytesOf(argv)
  const build = buildSidecar()
  if (build.error !== undefined) console.log(`sidecar build failed, running its sources under tsx: ${build.error}`)
  const doc = buildJoinDoc(bytes)
  console.log(
    `document: ${doc.update.byteLength.toLocaleString('en')} B of Yjs state, ${doc.text.length.toLocaleString('en')} characters, built in ${(doc.buildMs / 1000).toFixed(1)} s`,
  )
  const runs: JoinRun[] = argv.includes('--no-main')
    ? []
    : [
        ...(await sidecarJoin(build.runtime, bytes, {
          doc,
          relinkAgain: argv.includes('--relink-again'),
          timeoutMs: 120_000,
        })),
      ]
  if (argv.includes('--frame-default'))
    runs.push(
      ...(await sidecarJoin(build.runtime, bytes, {
        doc,
        env: { E2E_COL_MAX_FRAME_BYTES: String(2 * 1024 * 1024) },
        label: 'E2E_COL_MAX_FRAME_BYTES at its default (2 MiB)',
        timeoutMs: 60_000,
      })),
    )
  const phones = Number(argv.find((a) => a.startsWith('--phone-only='))?.slice('--phone-only='.length) ?? 0)
  if (phones > 0)
    runs.push(
      ...(await sidecarJoin(build.runtime, bytes, {
        doc,
        phoneOnly: Array.from({ length: phones }, (_, i) => `+1555556${String(i).padStart(4, '0')}`),
        label: `${phones} phone-only member(s) in the group`,
        timeoutMs: 60_000,
      })),
    )
  runs.push(await baselineJoin('y-websocket', bytes, doc), await baselineJoin('Hocuspocus', bytes, doc))
  console.log(
    `\n## Joins (issue #41): \`npx tsx --conditions=@e2e-col/source bench/scale/joins-run.ts ${argv.join(' ')}\`\n`,
  )
  console.log(printJoins(runs))
}

try {
  await main(process.argv.slice(2))
  // Providers and sockets of the baselines may keep the loop alive: the run is over.
  process.exit(0)
} catch (error) {
  console.error(error)
  process.exit(1)
}
