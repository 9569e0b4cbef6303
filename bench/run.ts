/** `npm run bench`: runs every benchmark in turn. Each prints its table and writes bench/results/. */
import { benchProtocol } from './protocol.ts'

benchProtocol()
