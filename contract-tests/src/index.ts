/**
 * What other packages' tests may use from the contract suite: the offline real signal-cli fixture.
 */
export {
  OFFLINE_ACCOUNT_A,
  OFFLINE_ACCOUNT_B,
  OFFLINE_GROUP_NAME,
  offlineAccountsSupport,
  startOfflineAccountsDaemon,
  type OfflineAccountsDaemon,
  type OfflineAccountsSupport,
} from './offline-accounts.ts'
