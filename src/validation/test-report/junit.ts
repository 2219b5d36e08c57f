import { XMLParser } from 'fast-xml-parser'
import { normaliseOutput } from './normalise.js'
import type { TestCase, TestReport } from './types.js'

type Node = Record<string, unknown>

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error'].includes(name),
  processEntities: true
})

/**
 * JUnit XML as Maven Surefire, Gradle and `pytest --junitxml` write it: every <testcase>, failed
 * when it holds <failure> or <error>, skipped with <skipped>.
 */
export function parseJUnitXml(xml: string): TestReport | undefined {
  if (!/<testsuites?\b/.test(xml)) return undefined
  let root: Node
  try {
    root = parser.parse(xml) as Node
  } catch {
    return undefined
  }
  const tests: TestCase[] = []
  const visit = (suite: Node) => {
    for (const inner of asArray(suite.testsuite)) visit(inner)
    for (const testcase of asArray(suite.testcase)) tests.push(caseOf(testcase))
  }
  const top = (root.testsuites as Node | undefined) ?? root
  visit(top)
  return tests.length > 0 ? { runner: 'junit', tests } : undefined
}

function caseOf(testcase: Node): TestCase {
  const name = String(testcase.name ?? '')
  const classname = testcase.classname ? String(testcase.classname) : ''
  const id = classname ? `${classname}.${name}` : name
  const file = testcase.file ? String(testcase.file) : undefined
  const problems = [...asArray(testcase.failure), ...asArray(testcase.error)]
  if (problems.length > 0) {
    const text = problems.map((p) => [p.message, p['#text']].filter(Boolean).join('\n')).join('\n')
    return {
      id,
      ...(file ? { file } : {}),
      status: 'failed',
      message: normaliseOutput(firstLines(text))
    }
  }
  return { id, ...(file ? { file } : {}), status: 'skipped' in testcase ? 'skipped' : 'passed' }
}

/** The message and the start of the body: the asserted values, not the whole stack. */
function firstLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s+at |^\s*File "/.test(line))
    .slice(0, 12)
    .join('\n')
}

function asArray(value: unknown): Node[] {
  if (value === undefined || value === null || value === '') return []
  return (Array.isArray(value) ? value : [value]).map((v) =>
    typeof v === 'object' && v ? (v as Node) : { '#text': String(v) }
  )
}
