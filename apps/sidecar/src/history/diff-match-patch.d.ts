// The few members of diff-match-patch (no published types) that the demo pages' history preview
// (apps/demo/src/history/text-changes.ts) uses: one declaration for the whole program. The sidecar's
// restore no longer diffs (decisions/0031).
declare module 'diff-match-patch' {
  export type Diff = [-1 | 0 | 1, string]
  export default class DiffMatchPatch {
    Diff_Timeout: number
    diff_main(a: string, b: string, checkLines?: boolean): Diff[]
    diff_cleanupSemantic(diffs: Diff[]): void
  }
}
