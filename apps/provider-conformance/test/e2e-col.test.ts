import { runProviderConformance } from './run-scenarios.ts'
import { startE2eColTarget } from './e2e-col-target.ts'

runProviderConformance('E2eColProvider with sidecars on the toy daemon', startE2eColTarget)
