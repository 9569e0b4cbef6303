export {
  DEMO_DOC_ID,
  DEMO_GROUP_ID,
  DEMO_TITLE,
  startDemoStack,
  type DemoStack,
  type DemoStackOptions,
  type Who,
} from './stack.ts'
export { parseExtraOrigins } from './extra-origins.ts'
