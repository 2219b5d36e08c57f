export { FRAMEWORK_NAMES, packageScripts, testFramework, type TestFramework } from './framework.js'
export { isTestFile, reproductionLocation, type TestLocation } from './test-location.js'
export { failureKind, judgeReproduction, type ReproductionJudgement } from './judge-reproduction.js'
