export { E2eColProvider as Provider } from '@e2e-col/client'
