export { DEMO_DOC_ID, DEMO_GROUP_ID, startDemoStack, type DemoStack, type DemoStackOptions, type Who } from './stack.ts'
