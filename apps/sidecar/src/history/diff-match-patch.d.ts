// The few members of diff-match-patch (no published types) that restore.ts uses.
declare module 'diff-match-patch' {
  export type Diff = [-1 | 0 | 1, string]
  export default class DiffMatchPatch {
    Diff_Timeout: number
    diff_main(a: string, b: string, checkLines?: boolean): Diff[]
  }
}
