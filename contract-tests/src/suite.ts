/**
 * The signal-cli daemon contract, automerge `runNetworkAdapterTests` style: one set of cases run
 * against any daemon (the toy, a real signal-cli, a live registered daemon). Each case carries a
 * tag; a target runs the cases of the tags it supports and skips the others with the reason printed
 * in its one-line summary. A case that has a client body runs twice against the same daemon: once
 * as raw HTTP probes, once through the production client `@e2e-col/signal-cli`.
 * @see docs/daemon-contract.md §6
 */
import { afterAll, beforeAll, describe, it, onTestFinished } from 'vitest'
import { registerAccountRoutingCases } from './cases/account-routing.ts'
import { registerAttachmentCases } from './cases/attachments.ts'
import { registerBatchingCases } from './cases/batching.ts'
import { registerContactCases } from './cases/contacts.ts'
import { registerDeliveryCases } from './cases/delivery.ts'
import { registerEventsCases } from './cases/events.ts'
import { registerFaultCases } from './cases/faults.ts'
import { registerGroupAdminCases } from './cases/group-admin.ts'
import { registerGroupCases } from './cases/groups.ts'
import { registerHttpLayerCases } from './cases/http-layer.ts'
import { registerJsonRpcParsingCases } from './cases/jsonrpc-parsing.ts'
import { registerOfflineCases } from './cases/offline.ts'
import { registerProvisioningCases } from './cases/provisioning.ts'
import { registerSendCases } from './cases/send.ts'
import { registerSendFailureCases } from './cases/send-failures.ts'
import { clientDaemon } from './client-probe.ts'
import { versionAtLeast, type CaseTag, type ContractTarget } from './target.ts'

export type { CaseOptions, ClientRun, DefineCase } from './define-case.ts'
import type { DefineCase } from './define-case.ts'

/** Title of the block that holds a family's runs through the production client. */
export const CLIENT_RUN = 'through the production client (@e2e-col/signal-cli)'

/** How a target is described to the suite. */
export interface TargetSpec {
  /** Tags this target supports; `any` is implied. */
  tags: readonly CaseTag[]
  /** Why cases of each unsupported tag are skipped, for the summary line. */
  skipReasons: Partial<Record<CaseTag, string>>
  setup(): Promise<ContractTarget>
  /** Bound on {@link setup}; 90 s unless given (a real daemon that builds its fixture first needs more). */
  setupTimeoutMs?: number
}

function sum(counts: ReadonlyMap<string, number>): number {
  return [...counts.values()].reduce((a, b) => a + b, 0)
}

/** Defines the contract suite for one target. */
export function describeSignalDaemonContract(targetName: string, spec: TargetSpec): void {
  describe(`signal-cli daemon contract: ${targetName}`, () => {
    let target: ContractTarget | undefined
    const client = clientDaemon(() => target?.url ?? '')
    const tally = {
      passed: new Map<CaseTag, number>(),
      viaClient: 0,
      failed: 0,
      skipped: new Map<CaseTag, number>(),
      newer: new Map<string, number>(),
    }

    beforeAll(async () => {
      target = await spec.setup()
    }, spec.setupTimeoutMs ?? 90_000)
    afterAll(async () => {
      await client.close()
      await target?.teardown()
      const perTag = [...tally.passed.entries()].map(([tag, n]) => `${n} '${tag}'`).join(', ')
      const reasons = [...tally.skipped.entries()].map(
        ([tag, n]) => `${n} '${tag}': ${spec.skipReasons[tag] ?? 'not supported'}`,
      )
      for (const [since, n] of tally.newer)
        reasons.push(`${n} need a newer daemon: signal-cli ≥ ${since} (this one: ${target?.version ?? '?'})`)
      console.log(
        `[contract] ${targetName}: ${sum(tally.passed)} passed${perTag === '' ? '' : ` (${perTag}; ${tally.viaClient} of them through the production client)`}, ${tally.failed} failed, ${sum(tally.skipped) + sum(tally.newer)} skipped${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`,
      )
    }, 30_000)

    const register = (
      tag: CaseTag,
      name: string,
      run: (target: ContractTarget) => Promise<void>,
      timeoutMs: number,
      viaClient: boolean,
      since: string | undefined,
    ): void => {
      it(
        name,
        async (ctx) => {
          if (target === undefined) throw new Error('target setup failed')
          if (since !== undefined && !versionAtLeast(target.version, since)) {
            tally.newer.set(since, (tally.newer.get(since) ?? 0) + 1)
            ctx.skip(`needs a newer daemon: signal-cli ≥ ${since} (this one: ${target.version})`)
          }
          onTestFinished(({ task }) => {
            if (task.result?.state === 'fail') tally.failed += 1
            else {
              tally.passed.set(tag, (tally.passed.get(tag) ?? 0) + 1)
              if (viaClient) tally.viaClient += 1
            }
          })
          await run(target)
        },
        timeoutMs,
      )
    }

    // A family's client runs are registered after its raw runs, in the same order, so a client run
    // follows the same neighbours as its raw twin (a stream closed by one case, a queue it left).
    let clientRuns: (() => void)[] = []
    const defineCase: DefineCase = (tag, name, run, options = {}) => {
      const {
        timeoutMs = 15_000,
        client: viaClient,
        since,
      } = typeof options === 'number' ? { timeoutMs: options } : options
      const supported = tag === 'any' || spec.tags.includes(tag)
      const title = `[${tag}] ${name}`
      if (!supported) {
        tally.skipped.set(tag, (tally.skipped.get(tag) ?? 0) + (viaClient === undefined ? 1 : 2))
        // The reason is in the skipped test's own title too, not only in the summary line.
        const skipped = (): void => it.skip(`${title} (skipped: ${spec.skipReasons[tag] ?? 'not supported'})`, () => {})
        skipped()
        if (viaClient !== undefined) clientRuns.push(skipped)
        return
      }
      register(tag, title, run, timeoutMs, false, since)
      if (viaClient !== undefined)
        clientRuns.push(() => register(tag, title, (t) => viaClient(t, client), timeoutMs, true, since))
    }
    const family = (registerCases: (define: DefineCase) => void): void => {
      registerCases(defineCase)
      const runs = clientRuns
      clientRuns = []
      if (runs.length > 0) describe(CLIENT_RUN, () => runs.forEach((r) => r()))
    }

    family(registerHttpLayerCases)
    family(registerJsonRpcParsingCases)
    family(registerBatchingCases)
    family(registerAccountRoutingCases)
    family(registerSendCases)
    family(registerSendFailureCases)
    family(registerGroupCases)
    family(registerContactCases)
    family(registerGroupAdminCases)
    family(registerEventsCases)
    family(registerDeliveryCases)
    family(registerFaultCases)
    family(registerOfflineCases)
    family(registerAttachmentCases)
    family(registerProvisioningCases)
  })
}
