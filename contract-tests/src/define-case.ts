/**
 * How a case family registers its cases: the suite (suite.ts) hands each family a `DefineCase`.
 * Kept apart from the suite so that the families, which the suite imports, import nothing of it.
 */
import type { ClientDaemon } from './client-probe.ts'
import type { CaseTag, ContractTarget } from './target.ts'

/** The same case through the production client; `client` makes its backends for the live target. */
export type ClientRun = (target: ContractTarget, client: ClientDaemon) => Promise<void>

/** A case's bound (15 s unless given) and, when it has one, its body through the production client. */
export interface CaseOptions {
  timeoutMs?: number
  client?: ClientRun
  /**
   * The first signal-cli release with what the case checks: an older target skips it at run time,
   * marked "needs a newer daemon" with both versions, and the summary counts it.
   */
  since?: string
}

/** Registers one case; `run` (raw probes) gets the live target; a number is the timeout. */
export type DefineCase = (
  tag: CaseTag,
  name: string,
  run: (target: ContractTarget) => Promise<void>,
  options?: number | CaseOptions,
) => void
