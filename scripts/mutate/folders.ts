/**
 * The folders `npm run mutate` covers and, for each, the tests that defend it. A folder's score is
 * what its own tests (unit and in-process integration) kill: slow multi-process suites are left
 * out, they would make each mutant cost seconds and their coverage is not per test.
 */
export interface MutateFolder {
  /** The folder whose sources get mutated, relative to the repo root. */
  readonly folder: string
  /** Globs of the test files run against its mutants. */
  readonly tests: readonly string[]
}

export const MUTATE_FOLDERS: readonly MutateFolder[] = [
  { folder: 'packages/protocol', tests: ['packages/protocol/src/**/*.test.ts', 'packages/protocol/test/**/*.test.ts'] },
  // The packer (send) is tested through the receive path, and inflating (receive) by the deflate round trip.
  {
    folder: 'apps/sidecar/src/receive',
    tests: ['apps/sidecar/src/receive/**/*.test.ts', 'apps/sidecar/src/send/deflate-frame.test.ts'],
  },
  {
    folder: 'apps/sidecar/src/send',
    tests: ['apps/sidecar/src/send/**/*.test.ts', 'apps/sidecar/src/receive/ingest.test.ts'],
  },
  { folder: 'apps/chat/src/loop', tests: ['apps/chat/src/loop/**/*.test.ts'] },
  { folder: 'apps/chat/src/redact', tests: ['apps/chat/src/redact/**/*.test.ts'] },
  { folder: 'packages/client/src', tests: ['packages/client/src/**/*.test.ts', 'packages/client/test/**/*.test.ts'] },
  {
    folder: 'packages/transport/src',
    tests: ['packages/transport/src/**/*.test.ts', 'packages/transport/test/**/*.test.ts'],
  },
]

/** `apps/sidecar/src/receive` → `apps-sidecar-src-receive` (file names under `.mutation/`). */
export const slug = (folder: string): string => folder.replaceAll(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')
