import { runProviderConformance } from './run-scenarios.ts'
import { startYWebsocketTarget } from './y-websocket-target.ts'

runProviderConformance('y-websocket with @y/websocket-server', startYWebsocketTarget)
