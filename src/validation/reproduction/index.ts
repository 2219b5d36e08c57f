export { FRAMEWORK_NAMES, packageScripts, testFramework, type TestFramework } from './framework.js'
export { isTestFile, reproductionLocation } from './test-location.js'
export { judgeReproduction } from './judge-reproduction.js'
