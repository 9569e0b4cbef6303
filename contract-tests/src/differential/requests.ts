/**
 * The raw requests of the toy-versus-real differential: every account-level call the sidecar, the
 * chat loop and `e2e-col setup` make (and the malformed and refused forms of each), written once
 * against the offline-accounts fixture's names so both daemons get byte-identical bodies.
 * @see docs/daemon-contract.md §6.12
 */

/** The fixture's names both daemons share: accounts, the shared group, the group `a` left. */
export interface DifferentialFixture {
  a: string
  b: string
  groupId: string
  formerGroupId: string
}

/** One raw request: a name, the method and its params (an array for the positional form). */
export interface DifferentialRequest {
  name: string
  method: string
  params?: Record<string, unknown> | unknown[]
}

/** A well-formed group id (32 bytes) that neither daemon holds. */
export const UNKNOWN_GROUP_ID = Buffer.alloc(32, 7).toString('base64')
/** A millisecond timestamp (a Jackson `Long`). */
const TS = 1_700_000_000_000
/** A one-byte attachment as a data URI. */
const DATA_URI = 'data:application/octet-stream;filename=a.bin;base64,AA=='

/** Every request, in the order they are sent (one at a time, so neither daemon sees a race). */
export function differentialRequests(f: DifferentialFixture): DifferentialRequest[] {
  const { a, b, groupId, formerGroupId } = f
  const U = UNKNOWN_GROUP_ID
  const reaction = { emoji: '👍', targetAuthor: b, targetTimestamp: TS }
  return [
    { name: 'version', method: 'version' },
    { name: 'listAccounts', method: 'listAccounts' },
    { name: 'listGroups as a', method: 'listGroups', params: { account: a } },
    { name: 'listGroups as b', method: 'listGroups', params: { account: b } },
    { name: 'listGroups filtered', method: 'listGroups', params: { account: a, groupId } },
    { name: 'listGroups unknown id', method: 'listGroups', params: { account: a, groupId: U } },
    { name: 'listGroups id with a bad character', method: 'listGroups', params: { account: a, groupId: 'nope!' } },
    { name: 'listGroups id of 3 bytes', method: 'listGroups', params: { account: a, groupId: 'YWJj' } },
    { name: 'listGroups without account', method: 'listGroups' },
    { name: 'listContacts', method: 'listContacts', params: { account: a } },
    { name: 'listContacts allRecipients', method: 'listContacts', params: { account: a, allRecipients: true } },
    {
      name: 'listContacts one recipient',
      method: 'listContacts',
      params: { account: a, allRecipients: true, recipient: b },
    },
    { name: 'send empty to unknown group', method: 'send', params: { account: a, groupId: U } },
    { name: 'send empty text to unknown group', method: 'send', params: { account: a, groupId: U, message: '' } },
    { name: 'send to unknown group', method: 'send', params: { account: a, groupId: U, message: 'hi' } },
    { name: 'send to a bad group id', method: 'send', params: { account: a, groupId: 'nope!', message: 'hi' } },
    { name: 'send to a 3-byte group id', method: 'send', params: { account: a, groupId: 'YWJj', message: 'hi' } },
    { name: 'send without target', method: 'send', params: { account: a, message: 'hi' } },
    { name: 'send to a group left', method: 'send', params: { account: a, groupId: formerGroupId, message: 'hi' } },
    { name: 'send to the group', method: 'send', params: { account: a, groupId, message: 'hi' } },
    {
      name: 'send noUrgent to the group',
      method: 'send',
      params: { account: a, groupId, message: 'hi', noUrgent: true },
    },
    { name: 'send a number as text', method: 'send', params: { account: a, groupId: U, message: 42 } },
    {
      name: 'send an attachment to unknown group',
      method: 'send',
      params: { account: a, groupId: U, message: 'hi', attachments: [DATA_URI] },
    },
    {
      name: 'send an attachment to the group',
      method: 'send',
      params: { account: a, groupId, message: 'hi', attachments: [DATA_URI] },
    },
    { name: 'send attachments as a number', method: 'send', params: { account: a, groupId, attachments: 5 } },
    { name: 'sendReaction to the group', method: 'sendReaction', params: { account: a, groupId, ...reaction } },
    { name: 'sendReaction to unknown group', method: 'sendReaction', params: { account: a, groupId: U, ...reaction } },
    {
      name: 'sendReaction with an int timestamp',
      method: 'sendReaction',
      params: { account: a, groupId, ...reaction, targetTimestamp: 5 },
    },
    {
      name: 'sendReaction with a text timestamp',
      method: 'sendReaction',
      params: { account: a, groupId, ...reaction, targetTimestamp: String(TS) },
    },
    { name: 'sendTyping to the group', method: 'sendTyping', params: { account: a, groupId } },
    { name: 'sendTyping to unknown group', method: 'sendTyping', params: { account: a, groupId: U } },
    { name: 'sendTyping stop to unknown group', method: 'sendTyping', params: { account: a, groupId: U, stop: true } },
    { name: 'sendTyping without target', method: 'sendTyping', params: { account: a } },
    {
      name: 'sendMessageRequestResponse accept',
      method: 'sendMessageRequestResponse',
      params: { account: a, groupId, type: 'accept' },
    },
    {
      name: 'sendMessageRequestResponse unknown group',
      method: 'sendMessageRequestResponse',
      params: { account: a, groupId: U, type: 'accept' },
    },
    {
      name: 'sendMessageRequestResponse bad type',
      method: 'sendMessageRequestResponse',
      params: { account: a, groupId, type: 'foo' },
    },
    {
      name: 'sendMessageRequestResponse no type',
      method: 'sendMessageRequestResponse',
      params: { account: a, groupId },
    },
    {
      name: 'sendMessageRequestResponse no target',
      method: 'sendMessageRequestResponse',
      params: { account: a, type: 'accept' },
    },
    { name: 'updateGroup no change', method: 'updateGroup', params: { account: a, groupId } },
    { name: 'updateGroup rename', method: 'updateGroup', params: { account: a, groupId, name: 'renamed' } },
    { name: 'updateGroup unknown group', method: 'updateGroup', params: { account: a, groupId: U, name: 'x' } },
    {
      name: 'updateGroup group left',
      method: 'updateGroup',
      params: { account: a, groupId: formerGroupId, name: 'x' },
    },
    { name: 'updateGroup bad link', method: 'updateGroup', params: { account: a, groupId, link: 'sometimes' } },
    {
      name: 'updateGroup create',
      method: 'updateGroup',
      params: { account: a, name: 'new', members: [b], description: 'd', expiration: 0 },
    },
    { name: 'quitGroup group left', method: 'quitGroup', params: { account: a, groupId: formerGroupId } },
    { name: 'quitGroup unknown group', method: 'quitGroup', params: { account: a, groupId: U } },
    { name: 'quitGroup without groupId', method: 'quitGroup', params: { account: a } },
    { name: 'getAttachment unknown id', method: 'getAttachment', params: { account: a, id: 'nope.bin', groupId } },
    { name: 'getAttachment without id', method: 'getAttachment', params: { account: a, groupId } },
    { name: 'getUserStatus', method: 'getUserStatus', params: { account: a, recipient: b } },
    { name: 'finishLink without URI', method: 'finishLink', params: { deviceName: 'x' } },
    { name: 'finishLink bad URI', method: 'finishLink', params: { deviceLinkUri: 'nope', deviceName: 'x' } },
    {
      name: 'verify never registered',
      method: 'verify',
      params: { account: '+15550000009', verificationCode: '123-456' },
    },
    ...accountLevelRequests(f),
  ]
}

/**
 * The account-level questions (issue #42): identities, contacts, profiles, devices, users, groups'
 * bans and links, and bad input; then the positional-params shape. Asked after the ones above (the
 * contact naming changes what `listContacts` answers next).
 */
function accountLevelRequests(f: DifferentialFixture): DifferentialRequest[] {
  const { a, b, groupId, formerGroupId } = f
  const U = UNKNOWN_GROUP_ID
  return [
    { name: 'listIdentities', method: 'listIdentities', params: { account: a } },
    { name: 'listIdentities of one number', method: 'listIdentities', params: { account: a, number: b } },
    { name: 'listIdentities of a stranger', method: 'listIdentities', params: { account: a, number: '+15550000077' } },
    { name: 'listIdentities of no number', method: 'listIdentities', params: { account: a, number: 'nope' } },
    { name: 'updateContact names b', method: 'updateContact', params: { account: a, recipient: b, name: 'Bee' } },
    {
      name: 'updateContact of no number',
      method: 'updateContact',
      params: { account: a, recipient: 'nope', name: 'x' },
    },
    {
      name: 'updateContact of an address',
      method: 'updateContact',
      params: { account: a, recipient: 'a@b', name: 'x' },
    },
    { name: 'updateContact without recipient', method: 'updateContact', params: { account: a, name: 'x' } },
    { name: 'listContacts after naming', method: 'listContacts', params: { account: a, recipient: b } },
    { name: 'listContacts by name', method: 'listContacts', params: { account: a, name: 'Bee' } },
    { name: 'listContacts blocked', method: 'listContacts', params: { account: a, blocked: true } },
    { name: 'updateProfile offline', method: 'updateProfile', params: { account: a, givenName: 'A' } },
    {
      name: 'updateProfile with a missing avatar',
      method: 'updateProfile',
      params: { account: a, avatar: '/nonexistent/e2e-col.png' },
    },
    {
      name: 'listContacts allRecipients after the updates',
      method: 'listContacts',
      params: { account: a, allRecipients: true, detailed: true },
    },
    { name: 'listDevices offline', method: 'listDevices', params: { account: a } },
    { name: 'getUserStatus of nobody', method: 'getUserStatus', params: { account: a } },
    { name: 'getUserStatus of no number', method: 'getUserStatus', params: { account: a, recipient: 'nope' } },
    { name: 'getUserStatus of a username', method: 'getUserStatus', params: { account: a, username: 'x.01' } },
    { name: 'listGroups detailed', method: 'listGroups', params: { account: a, detailed: true } },
    { name: 'updateGroup ban', method: 'updateGroup', params: { account: a, groupId, ban: [b] } },
    {
      name: 'updateGroup remove with a ban',
      method: 'updateGroup',
      params: { account: a, groupId, removeMember: [b], ban: [b] },
    },
    { name: 'updateGroup unban one not banned', method: 'updateGroup', params: { account: a, groupId, unban: [b] } },
    { name: 'updateGroup link off', method: 'updateGroup', params: { account: a, groupId, link: 'disabled' } },
    {
      name: 'updateGroup link with approval',
      method: 'updateGroup',
      params: { account: a, groupId, link: 'enabled-with-approval' },
    },
    { name: 'updateGroup resetLink', method: 'updateGroup', params: { account: a, groupId, resetLink: true } },
    { name: 'updateGroup ban no number', method: 'updateGroup', params: { account: a, groupId, ban: ['nope'] } },
    { name: 'updateGroup ban in unknown group', method: 'updateGroup', params: { account: a, groupId: U, ban: [b] } },
    {
      name: 'updateGroup ban in a group left',
      method: 'updateGroup',
      params: { account: a, groupId: formerGroupId, ban: [b] },
    },
    { name: 'joinGroup with no link', method: 'joinGroup', params: { account: a, uri: 'nope' } },
    { name: 'joinGroup without uri', method: 'joinGroup', params: { account: a } },
    { name: 'quitGroup delete unknown group', method: 'quitGroup', params: { account: a, groupId: U, delete: true } },
    { name: 'terminateGroup (0.14.8+)', method: 'terminateGroup', params: { account: a, groupId } },
    {
      name: 'sendAdminDelete (0.14.0+)',
      method: 'sendAdminDelete',
      params: { account: a, groupId, targetAuthor: b, targetTimestamp: 1 },
    },
    { name: 'send to no number', method: 'send', params: { account: a, recipient: ['nope'], message: 'hi' } },
    { name: 'send to b directly, offline', method: 'send', params: { account: a, recipient: [b], message: 'hi' } },
    { name: 'positional params, listGroups', method: 'listGroups', params: [a] },
    { name: 'positional params, send', method: 'send', params: [] },
    { name: 'positional params, version', method: 'version', params: [a] },
    { name: 'positional params, getAttachment', method: 'getAttachment', params: [a, 'x'] },
    { name: 'positional params, listDevices', method: 'listDevices', params: [a] },
  ]
}

/**
 * Setup's calls that go to Signal's servers: compared only on a machine that cannot reach them
 * (there both daemons answer the offline failure); elsewhere the real one would link or ask Signal
 * for an SMS.
 */
export function unreachableRequests(): DifferentialRequest[] {
  return [
    { name: 'startLink', method: 'startLink' },
    { name: 'register a new number', method: 'register', params: { account: '+15550000009' } },
  ]
}
