/**
 * The signal-cli daemon contract, automerge `runNetworkAdapterTests` style: one set of cases run
 * against any daemon (the toy, a real signal-cli, a live registered daemon). Each case carries a
 * tag; a target runs the cases of the tags it supports and skips the others with the reason printed
 * in its one-line summary.
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
import type { CaseTag, ContractTarget } from './target.ts'

/** Registers one case; `run` gets the live target. */
export type DefineCase = (
  tag: CaseTag,
  name: string,
  run: (target: ContractTarget) => Promise<void>,
  timeoutMs?: number,
) => void

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

function sum(counts: Map<CaseTag, number>): number {
  return [...counts.values()].reduce((a, b) => a + b, 0)
}

/** Defines the contract suite for one target. */
export function describeSignalDaemonContract(targetName: string, spec: TargetSpec): void {
  describe(`signal-cli daemon contract: ${targetName}`, () => {
    let target: ContractTarget | undefined
    const tally = { passed: new Map<CaseTag, number>(), failed: 0, skipped: new Map<CaseTag, number>() }

    beforeAll(async () => {
      target = await spec.setup()
    }, spec.setupTimeoutMs ?? 90_000)
    afterAll(async () => {
      await target?.teardown()
      const perTag = [...tally.passed.entries()].map(([tag, n]) => `${n} '${tag}'`).join(', ')
      const reasons = [...tally.skipped.entries()].map(
        ([tag, n]) => `${n} '${tag}': ${spec.skipReasons[tag] ?? 'not supported'}`,
      )
      console.log(
        `[contract] ${targetName}: ${sum(tally.passed)} passed${perTag === '' ? '' : ` (${perTag})`}, ${tally.failed} failed, ${sum(tally.skipped)} skipped${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`,
      )
    }, 30_000)

    const defineCase: DefineCase = (tag, name, run, timeoutMs = 15_000) => {
      const supported = tag === 'any' || spec.tags.includes(tag)
      if (!supported) {
        tally.skipped.set(tag, (tally.skipped.get(tag) ?? 0) + 1)
        it.skip(`[${tag}] ${name}`, () => {})
        return
      }
      it(
        `[${tag}] ${name}`,
        async () => {
          onTestFinished(({ task }) => {
            if (task.result?.state === 'fail') tally.failed += 1
            else tally.passed.set(tag, (tally.passed.get(tag) ?? 0) + 1)
          })
          if (target === undefined) throw new Error('target setup failed')
          await run(target)
        },
        timeoutMs,
      )
    }

    registerHttpLayerCases(defineCase)
    registerJsonRpcParsingCases(defineCase)
    registerBatchingCases(defineCase)
    registerAccountRoutingCases(defineCase)
    registerSendCases(defineCase)
    registerSendFailureCases(defineCase)
    registerGroupCases(defineCase)
    registerContactCases(defineCase)
    registerGroupAdminCases(defineCase)
    registerEventsCases(defineCase)
    registerDeliveryCases(defineCase)
    registerFaultCases(defineCase)
    registerOfflineCases(defineCase)
    registerAttachmentCases(defineCase)
    registerProvisioningCases(defineCase)
  })
}
