/**
 * For the membership tests: the groups they list and a data message's source as the events
 * stream names it.
 */
import type { MessageSource } from './membership.ts'

/** The group every membership test checks. */
export const G = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
/** A second group, for listings that name several. */
export const OTHER = 'Qmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

/** The source of a data message (not a sync copy) from `sourceNumber` and/or `sourceUuid`. */
export const data = (sourceNumber: string | undefined, sourceUuid?: string): MessageSource => ({
  origin: 'data',
  sourceNumber,
  sourceUuid,
})
