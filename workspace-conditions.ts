/**
 * The export condition under which every workspace package resolves to its TypeScript source
 * (`src/*.ts`) instead of the built `dist/` that installed copies use (docs/packages.md). Vite,
 * vitest and the dev bins add it; tsconfig.base.json names it in `customConditions`.
 */
import { defaultClientConditions, defaultServerConditions, type UserConfig } from 'vite'

export const SOURCE_CONDITION = '@e2e-col/source'

/** The `resolve` settings of a Vite or vitest config inside this repository. */
export const workspaceResolve = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
} satisfies UserConfig
