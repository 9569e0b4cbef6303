/**
 * The toy's groups as plain JSON, so a toy started again (the demo's `npm start`, run twice) knows
 * the groups the last one made: ids, names, descriptions, members, invitees, admins, timers, bans
 * and invite links.
 */
import { z } from 'zod'
import { ToySignalError } from './errors.ts'
import type { ToySignalState } from './state.ts'

const Number164 = z.string().regex(/^\+[1-9]\d{6,14}$/)
/** Most groups a snapshot may bring back (the toy's own bound). */
const MAX_SNAPSHOT_GROUPS = 1000

export const GroupSnapshot = z.strictObject({
  id: z
    .string()
    .refine((id) => [16, 32].includes(Buffer.from(id, 'base64').length), 'must be base64 of 16 or 32 bytes'),
  name: z.string().max(1024),
  description: z.string().max(8192),
  revision: z.number().int().min(0),
  expiration: z.number().int().min(0),
  members: z.array(Number164).max(1000),
  admins: z.array(Number164).max(1000),
  formerMembers: z.array(Number164).max(1000),
  pending: z.array(Number164).max(1000),
  requesting: z.array(Number164).max(1000),
  // Absent in snapshots written before permissions were kept: signal-cli's default.
  permissionAddMember: z.enum(['EVERY_MEMBER', 'ONLY_ADMINS']).optional(),
  permissionEditDetails: z.enum(['EVERY_MEMBER', 'ONLY_ADMINS']).optional(),
  // Absent in snapshots written before bans and links were kept: none, and the link off.
  banned: z.array(Number164).max(1000).optional(),
  link: z.enum(['disabled', 'enabled', 'enabled-with-approval']).optional(),
  linkPassword: z
    .string()
    .regex(/^[A-Za-z0-9_-]{22}$/)
    .optional(),
  // Absent in snapshots written before groups could be ended: not ended.
  terminated: z.literal(true).optional(),
})
export type GroupSnapshot = z.infer<typeof GroupSnapshot>

/** Every group of the toy, as JSON-ready values. */
export function snapshotGroups(state: ToySignalState): GroupSnapshot[] {
  return [...state.groups.values()].map((g) => ({
    id: g.id,
    name: g.name,
    description: g.description,
    revision: g.revision,
    expiration: g.expiration,
    members: [...g.members],
    admins: [...g.admins],
    formerMembers: [...g.formerMembers],
    pending: [...g.pending],
    requesting: [...g.requesting],
    permissionAddMember: g.permissions.addMember,
    permissionEditDetails: g.permissions.editDetails,
    banned: [...g.banned],
    link: g.link,
    linkPassword: g.linkPassword,
    ...(g.terminated === true ? { terminated: true as const } : {}),
  }))
}

/** Brings groups back into a fresh state (a group whose id exists already is kept as it is). @throws ToySignalError */
export function restoreGroups(state: ToySignalState, snapshots: unknown): void {
  const parsed = z.array(GroupSnapshot).max(MAX_SNAPSHOT_GROUPS).safeParse(snapshots)
  if (!parsed.success)
    throw new ToySignalError(
      'TOY_CONFIG_INVALID',
      `group snapshot: ${z.prettifyError(parsed.error).split('\n')[0] ?? ''}`,
    )
  for (const s of parsed.data) {
    if (state.groups.has(s.id)) continue
    const g = state.createGroup(s.name, s.members, undefined, s.id)
    g.description = s.description
    g.revision = s.revision
    g.expiration = s.expiration
    g.admins = new Set(s.admins)
    g.formerMembers = new Set(s.formerMembers)
    g.pending = [...s.pending]
    g.requesting = [...s.requesting]
    g.permissions = {
      addMember: s.permissionAddMember ?? 'EVERY_MEMBER',
      editDetails: s.permissionEditDetails ?? 'EVERY_MEMBER',
    }
    g.banned = new Set(s.banned ?? [])
    g.link = s.link ?? 'disabled'
    if (s.linkPassword !== undefined) g.linkPassword = s.linkPassword
    if (s.terminated === true) g.terminated = true
    for (const n of [...s.pending, ...s.formerMembers, ...s.requesting, ...g.banned]) state.uuidOf(n)
  }
}
