/** The `toy-signal --help` text. */
export const HELP = `toy-signal: a mock signal-cli daemon (HTTP JSON-RPC + SSE) for tests and the local demo.
It answers like signal-cli 0.14.x without a phone number (or like the version given with
--signal-cli-version); its default version string contains "toy".

Usage: toy-signal [options]

  --http HOST:PORT          listen address (default 127.0.0.1:8080; port 0 picks a free one)
  --account +E164           an account of this daemon (repeatable; multi-account mode)
  --group NAME:+E164,...    create a group with these members; its base64 id is printed at start
  --unregistered +E164      a number that has left Signal (repeatable): sends to it fail
  --single-account +E164    the daemon's -a mode: one account, the account parameter is ignored
  --config FILE             the same settings as JSON: {http, accounts, groups, unregistered,
                            singleAccount, faults, keepAliveMs, signalPace,
                            maxAttachmentBytes, linkTimeoutMs, offline, pendingInvites,
                            names, signalCliVersion}; flags add to it
  --faults                  enable the fault switches and the /toy/v1/ admin route (tests only)
  --keep-alive-ms N         events-stream keep-alive period (default 15000, as signal-cli)
  --signal-pace             enforce Signal's pace: 60 messages per sender and destination,
                            refilled one per second; 50 attachment uploads, one per 1.2 s
  --max-attachment-bytes N  largest attachment a send accepts (default 104857600)
  --link-timeout-ms N       how long finishLink waits for a scan (default 60000)
  --offline                 Signal is unreachable: startLink and register fail as offline signal-cli does
  --signal-cli-version V    the signal-cli version to play (default 0.14.6-toy); 0.13.19 answers
                            as the real 0.13.19 (no isAdmin, noUrgent ignored); 0.14.8 adds
                            terminateGroup (-32601 before); 0.14.0 adds sendAdminDelete
  --pending-invites         numbers the adder shares no group with are invited (pending), as on Signal
  --groups-file FILE        keep the groups in FILE across runs: read at start, rewritten
                            (temporary file + rename) before any request that changed one is answered
  --verbose                 one debug line per request on stderr
  -h, --help                this text

Linking and registration: startLink/finishLink and register/verify work without a phone;
with --faults, POST /toy/v1/provisioning/scan {deviceLinkUri, number} plays the phone and
GET /toy/v1/registration/codes shows the codes an SMS would carry.

Endpoints: POST /api/v1/rpc, GET /api/v1/events[?account=%2B...], GET /api/v1/check.
See docs/daemon-contract.md §5 and §7 for what it models and how it differs from a real daemon.
`
