/**
 * Which way dependencies may point (docs/architecture.md). Run by `npm run lint`.
 * Paths are the real files: workspace packages resolve through their node_modules symlinks.
 */
// A workspace imported by name resolves to its files too; only a relative path is `local` alone.
const NOT_RELATIVE = ['aliased', 'aliased-workspace', 'undetermined', 'npm', 'npm-dev', 'npm-no-pkg', 'npm-unknown']

/**
 * The sidecar's layers, lowest first (docs/architecture.md "The sidecar's layers"): a file may import
 * its own layer and the layers below it, never one above, type-only imports included. Each entry
 * is a pattern of paths under `apps/sidecar/src/`; tests (`*.test.ts`) combine layers freely.
 */
const SIDECAR_LAYERS = [
  [
    'base',
    '(errors|error-code|clock|closers|durable-file|listen-scope|node-codecs|config|signal-limits|startup)\\.ts$|(ops|http)/',
  ],
  ['store', 'replica/'],
  ['signal', '(group|send)/'],
  ['pages', 'browser/'],
  ['receive', 'receive/'],
  ['features', '(approval|authorship|presence|history|chat|review|stranded|people|roles|labels|retract)/'],
  ['document', 'document/'],
  ['documents', 'documents(-in-memory)?\\.ts$|library/'],
  ['phases', 'phases/'],
  ['entry', '(sidecar|internals|index|main)\\.ts$|cli/'],
]

/**
 * One rule per layer: nothing in it imports a layer above it. `prefix` names the rules of one
 * workspace apart (`layer-chat-base`); the sidecar's have none.
 */
function layerRules(root, layers, prefix = '') {
  const at = (pattern) => `^${root}(${pattern})`
  return layers.slice(0, -1).map(([name, pattern], i) => ({
    name: `layer-${prefix}${name}`,
    comment: `${root}: ${name} sits below ${layers
      .slice(i + 1)
      .map(([above]) => above)
      .join(', ')} (docs/architecture.md).`,
    severity: 'error',
    from: { path: at(pattern), pathNot: '\\.test\\.ts$' },
    to: { path: layers.slice(i + 1).map(([, above]) => at(above)) },
  }))
}

/**
 * Every source file under `scope` sits in one of the layers: one that imports anything is refused
 * (`<name>-in-layers`, as `sidecar-in-layers`), and so is an import of one (`<name>-imports-in-layers`),
 * which catches a file that imports nothing.
 */
function inLayersRules(name, root, layers, scope = `^${root}`) {
  const layered = layers.map(([, p]) => `^${root}(${p})`)
  const comment = `Every source file of ${root} sits in one of its layers (docs/architecture.md): a new file or folder is placed there.`
  return [
    {
      name: `${name}-in-layers`,
      comment,
      severity: 'error',
      from: { path: scope, pathNot: ['\\.test\\.ts$', ...layered] },
      to: {},
    },
    {
      name: `${name}-imports-in-layers`,
      comment,
      severity: 'error',
      from: {},
      to: { path: scope, pathNot: ['\\.test\\.ts$', ...layered] },
    },
  ]
}

/**
 * The workspace packages, lowest first (docs/architecture.md "The packages' order"): a package
 * imports only packages of the layers below its own, by name or by path, type-only imports included;
 * two packages of one layer never import each other.
 */
const PACKAGE_LAYERS = [
  ['standalone', '(protocol|sync|signal-cli|test-browser)/'],
  ['extending', '(transport|review|signal-cli-runtime)/'],
  ['client', 'client/'],
]

/** Two packages of one layer stand side by side: neither imports the other. */
function sameLayerRules(layers) {
  return layers.map(([name, pattern]) => ({
    name: `layer-package-${name}-side-by-side`,
    comment: `The packages of the ${name} layer never import each other (docs/architecture.md).`,
    severity: 'error',
    from: { path: `^packages/(${pattern})`, pathNot: '\\.test\\.ts$' },
    to: { path: `^packages/(${pattern})`, pathNot: '^packages/$1' },
  }))
}

/**
 * The layers of each app and of each package with more than a handful of files, lowest first, as
 * SIDECAR_LAYERS: `[rule-name prefix, root, layers]` (docs/architecture.md "Layers of the
 * packages and apps"). A page's `main.ts` is its entry and sits on top of its own folder.
 */
const WORKSPACE_LAYERS = [
  [
    'chat',
    'apps/chat/src/',
    [
      ['base', '(backoff|control|errors|exit-codes|group-name|help|receipt-state)\\.ts$|redact/'],
      ['ports', 'parent-pipe\\.ts$|(agent|console|review|signal)/'],
      ['state', 'state/'],
      ['setup', '(config|setup)\\.ts$'],
      ['loop', 'loop/'],
      ['entry', '(chat|index|main)\\.ts$'],
    ],
  ],
  [
    'cli',
    'apps/cli/src/',
    [
      ['base', '(chat-passthrough|children|errors|exit-codes|help|qr|qr-page|sidecar-passthrough)\\.ts$'],
      ['shared', '(args|failure-advice|state-dir|terminal)\\.ts$'],
      ['flows', '(link-flow|managed-daemon|opener|register-flow|sidecar-config)\\.ts$'],
      ['commands', '(setup|up)\\.ts$'],
      ['entry', 'main\\.ts$'],
    ],
  ],
  [
    'demo',
    'apps/demo/src/',
    [
      ['base', '(docs-client|extra-origins|offline-shell|page-params|start-up)\\.ts$'],
      ['views', '(console|history|home)/(?!main\\.ts$)'],
      ['page', 'page/(?!main\\.ts$)'],
      ['review', 'review/'],
      ['rich', 'rich/(?!main\\.ts$)'],
      ['entry', '(console|home|page|rich)/main\\.ts$|(index|stack)\\.ts$'],
    ],
  ],
  [
    'provider-conformance',
    'apps/provider-conformance/',
    [
      ['editors', 'bindings-app/(?!main\\.ts$)'],
      ['bindings-page', 'bindings-app/main\\.ts$'],
      ['targets', 'test/(e2e-col-target|provider-target|until|y-websocket-target)\\.ts$'],
      ['scenarios', 'test/(run-scenarios|scenarios)\\.ts$'],
    ],
  ],
  [
    'toy-signal',
    'apps/toy-signal/src/',
    [
      [
        'base',
        '(account-mask|attachments|daemon-version|envelopes|errors|faults|help|host-check|java-base64|jsonrpc|pace|people-book|provisioning-state|rpc-failure|signal-cli-commands|state)\\.ts$',
      ],
      [
        'world',
        '(admin-route|admin-world|event-hub|group-requests|group-snapshot|groups-file|method-faults|platform-limits|provisioning-admin)\\.ts$',
      ],
      ['methods', 'methods/'],
      ['server', '(dispatch|request-handler|toy-signal)\\.ts$'],
      ['entry', '(cli-options|index|main)\\.ts$'],
    ],
  ],
  [
    'protocol',
    'packages/protocol/src/',
    [
      ['base', '(author-id|close-codes|coded-error|crc32|errors|kinds|untrusted-text)\\.ts$'],
      [
        'codecs',
        '(attachment-ref|base64|base64-codec|bounded-options|byte-reader|dedup|delivery|envelope|health|ids|platform-codecs|refusal-codes)\\.ts$',
      ],
      ['bodies', '(batch|body|chunking)\\.ts$'],
      ['reassembly', '(partial-table|piece-store|reassembler)\\.ts$'],
      ['entry', 'index\\.ts$'],
    ],
  ],
  [
    'client',
    'packages/client/src/',
    [
      [
        'base',
        '(awareness-channel|checkpoint-schedule|coalescer|connect-gate|delivery-status|derived-client-id|errors|ids|page-lifecycle|remote-error|send-hold|seq-reservation)\\.ts$',
      ],
      ['parts', '(connection|indexeddb-storage|local-changes|outbox|sidecar-url|storage|storage-writes)\\.ts$'],
      ['client', 'client\\.ts$'],
      ['provider', 'provider\\.ts$'],
      ['entry', 'index\\.ts$'],
    ],
  ],
  [
    'review',
    'packages/review/src/',
    [
      ['base', '(errors|limits|writers)\\.ts$'],
      ['structure', '(anchors|base|inserted-words|mentions|review-only|structure|text-target)\\.ts$'],
      ['features', '(comments|concurrent-decisions|entry-count|read-text|suggestions)\\.ts$'],
      ['credit', 'credits\\.ts$'],
      ['entry', '(index|testing-docs)\\.ts$'],
    ],
  ],
  [
    'signal-cli',
    'packages/signal-cli/src/',
    [
      ['base', '(backoff|chat-id|daemon-capabilities|errors|platform-limits|redact|settings)\\.ts$'],
      ['transport', 'http-exchange\\.ts$'],
      ['rpc', '(backend|jsonrpc|provisioning)\\.ts$'],
      ['events', '(events-stream|receive-payload|sse-reader)\\.ts$'],
      ['http', 'http-backend\\.ts$'],
      ['entry', 'index\\.ts$'],
    ],
  ],
  [
    'signal-cli-runtime',
    'packages/signal-cli-runtime/src/',
    [
      ['base', '(errors|java|java-hint|rotating-log|signal-cli-launcher|signal-reachability)\\.ts$'],
      ['process', '(daemon-process|process-group|supervisor)\\.ts$'],
      ['entry', 'index\\.ts$'],
    ],
  ],
]

module.exports = {
  forbidden: [
    ...layerRules('apps/sidecar/src/', SIDECAR_LAYERS),
    {
      name: 'sidecar-in-layers',
      comment:
        'Every source file of the sidecar sits in one of its layers (SIDECAR_LAYERS): a new folder is placed there.',
      severity: 'error',
      from: {
        path: '^apps/sidecar/src/',
        pathNot: ['\\.test\\.ts$', ...SIDECAR_LAYERS.map(([, p]) => `^apps/sidecar/src/(${p})`)],
      },
      to: {},
    },
    ...layerRules('packages/', PACKAGE_LAYERS, 'package-'),
    ...sameLayerRules(PACKAGE_LAYERS),
    ...inLayersRules('packages', 'packages/', PACKAGE_LAYERS, '^packages/'),
    ...WORKSPACE_LAYERS.flatMap(([name, root, layers]) => [
      ...layerRules(root, layers, `${name}-`),
      ...inLayersRules(
        name,
        root,
        layers,
        name === 'provider-conformance' ? `^${root}(bindings-app|test)/` : `^${root}`,
      ),
    ]),
    {
      name: 'no-app-imports-app',
      comment:
        'An app never imports another app: shared code belongs in a package. Tests may start another app as a fixture ' +
        '(declared as a devDependency). The demo stack (apps/demo/src/stack.ts) starts the toy daemon and sidecars in process for `npm start`.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/src/', pathNot: ['\\.test\\.ts$', '^apps/demo/src/stack\\.ts$'] },
      to: { path: '^apps/([^/]+)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-path-into-another-package',
      comment:
        'Import another workspace by its package name (and its exported subpaths), never by a relative path into its src.',
      severity: 'error',
      from: { path: '^(apps|packages)/([^/]+)/' },
      to: {
        dependencyTypes: ['local'],
        dependencyTypesNot: NOT_RELATIVE,
        path: '^(apps|packages)/[^/]+/src/',
        pathNot: '^$1/$2/',
      },
    },
    {
      name: 'no-path-into-a-package-from-tools',
      comment: 'bench, reliability, contract-tests and scripts import workspaces by name too.',
      severity: 'error',
      from: { path: '^(bench|reliability|contract-tests|scripts)/' },
      to: { dependencyTypes: ['local'], dependencyTypesNot: NOT_RELATIVE, path: '^(apps|packages)/[^/]+/src/' },
    },
    {
      name: 'no-package-imports-app',
      comment: 'Packages sit below the apps.',
      severity: 'error',
      from: { path: '^packages/', pathNot: '\\.test\\.ts$' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles, within a package or across them, type-only imports included: a type two files share sits below both.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      // The workspace packages' sources (docs/packages.md), as everywhere in this repository.
      conditionNames: ['@e2e-col/source', 'import', 'default'],
      extensions: ['.ts', '.js', '.mjs'],
    },
  },
}
// For apps/sidecar/test/architecture-doc.test.ts, which checks docs/architecture.md against it
// (not enumerable: dependency-cruiser's configuration schema has no such key).
Object.defineProperty(module.exports, 'SIDECAR_LAYERS', { value: SIDECAR_LAYERS, enumerable: false })

// For the tests that compare the lists with docs/architecture.md: not enumerable, so the
// configuration dependency-cruiser validates stays as its schema wants it.
Object.defineProperty(module.exports, 'layers', { value: { PACKAGE_LAYERS, WORKSPACE_LAYERS }, enumerable: false })
