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
  ['base', '(errors|error-code|clock|closers|listen-scope|node-codecs|config|signal-limits|startup)\\.ts$|(ops|http)/'],
  ['store', 'replica/'],
  ['signal', '(group|send)/'],
  ['pages', 'browser/'],
  ['receive', 'receive/'],
  ['features', '(authorship|presence|history|chat|review|stranded|labels|retract)/'],
  ['document', 'document/'],
  ['documents', 'documents\\.ts$|library/|people/'],
  ['phases', 'phases/'],
  ['entry', '(sidecar|internals|index|main)\\.ts$|cli/'],
]

/** One rule per layer: nothing in it imports a layer above it. */
function layerRules(root, layers) {
  const at = (pattern) => `^${root}(${pattern})`
  return layers.slice(0, -1).map(([name, pattern], i) => ({
    name: `layer-${name}`,
    comment: `${root}: ${name} sits below ${layers
      .slice(i + 1)
      .map(([above]) => above)
      .join(', ')} (docs/architecture.md).`,
    severity: 'error',
    from: { path: at(pattern), pathNot: '\\.test\\.ts$' },
    to: { path: layers.slice(i + 1).map(([, above]) => at(above)) },
  }))
}

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
