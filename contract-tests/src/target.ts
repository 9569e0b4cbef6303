/**
 * What a contract case knows about the daemon under test.
 */
import { rpcResult } from './http-probe.ts'

/**
 * Which targets a case needs: `any` daemon; one with registered `account`s and groups, answering
 * from its local state; `delivery` through the Signal network (the toy's or Signal's); an
 * `offline` daemon whose accounts cannot reach Signal; the `toy`'s switches; or, accounts or not, a
 * daemon that cannot reach Signal's servers at all (`unreachable`: linking and registering).
 */
export type CaseTag = 'any' | 'account' | 'delivery' | 'offline' | 'toy' | 'unreachable'

/** A daemon under test, as returned by a target's setup. */
export interface ContractTarget {
  url: string
  /** The daemon's `version` answer, used where real versions differ (Host check, header flush, long text). */
  version: string
  /** Two registered accounts that share {@link groupId}; present on targets tagged `account`. */
  accounts?: { a: string; b: string }
  groupId?: string
  /** A group only `b` is in that `a` left (`a` still lists it with `isMember:false`); with {@link accounts}. */
  formerGroupId?: string
  /** Base URL of the toy's `/toy/v1/` admin route; present on targets tagged `toy`. */
  adminUrl?: string
  /** Starts another toy process with extra flags (toy target only), for modes the main one is not in. */
  spawnToy?: (args: readonly string[]) => Promise<{ url: string; stop(): Promise<void> }>
  /** A daemon without a way to Signal's servers (targets tagged `unreachable`): the target itself, or a toy started `--offline`. */
  unreachableUrl?: () => Promise<string>
  /** The keep-alive period the daemon was started with. */
  keepAliveMs: number
  teardown(): Promise<void>
}

function parseVersion(v: string): number[] {
  return (/^(\d+)\.(\d+)\.(\d+)/.exec(v) ?? []).slice(1).map(Number)
}

/** True when `version` (e.g. `0.13.19`, `0.14.6-toy`) is at least `wanted`. */
export function versionAtLeast(version: string, wanted: string): boolean {
  const parse = parseVersion
  const have = parse(version)
  const want = parse(wanted)
  for (let i = 0; i < 3; i += 1) {
    const h = have[i] ?? 0
    const w = want[i] ?? 0
    if (h !== w) return h > w
  }
  return true
}

/** The account fixtures of a target; throws when a case tagged `account` runs without them. */
export function fixtures(target: ContractTarget): { a: string; b: string; groupId: string; formerGroupId: string } {
  if (target.accounts === undefined || target.groupId === undefined || target.formerGroupId === undefined)
    throw new Error('this case needs accounts and groups')
  return { ...target.accounts, groupId: target.groupId, formerGroupId: target.formerGroupId }
}

/** A toy started for one case (toy target only) with `args`, stopped after, pass or fail. */
export async function withToy<T>(
  t: ContractTarget,
  args: readonly string[],
  body: (toy: { url: string }) => Promise<T>,
): Promise<T> {
  if (t.spawnToy === undefined) throw new Error('needs spawnToy')
  const toy = await t.spawnToy(args)
  try {
    return await body(toy)
  } finally {
    await toy.stop()
  }
}

/**
 * Makes the `formerGroupId` state through the daemon itself: `a` creates a group with `b`, then
 * leaves it (targets that can deliver; the offline fixture stores it directly).
 */
export async function makeFormerGroup(url: string, a: string, b: string): Promise<string> {
  const created = (await rpcResult(url, 'updateGroup', {
    account: a,
    name: 'contract former',
    members: [b],
    admin: [b],
  })) as { groupId: string }
  await rpcResult(url, 'quitGroup', { account: a, groupId: created.groupId, admin: [b] })
  return created.groupId
}
