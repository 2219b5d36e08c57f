import { XMLParser } from 'fast-xml-parser'
import { normaliseOutput } from './normalise.js'
import type { TestCase, TestReport } from './types.js'

type Node = Record<string, unknown>

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error'].includes(name),
  // No entity processing (a DOCTYPE's entities are never expanded): the five predefined ones and
  // character references are decoded afterwards, in one pass that cannot recurse.
  processEntities: false,
  htmlEntities: false
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
  const name = text(testcase.name)
  const classname = text(testcase.classname)
  const id = classname ? `${classname}.${name}` : name
  const file = text(testcase.file) || undefined
  const problems = [...asArray(testcase.failure), ...asArray(testcase.error)]
  if (problems.length > 0) {
    const said = problems
      .map((p) => [text(p.message), text(p['#text'])].filter(Boolean).join('\n'))
      .join('\n')
    return {
      id,
      ...(file ? { file } : {}),
      status: 'failed',
      message: normaliseOutput(firstLines(said))
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

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

/** An attribute or text as the document means it: predefined entities and character references decoded, nothing else. */
function text(value: unknown): string {
  if (value === undefined || value === null) return ''
  return String(value).replace(
    /&(?:#(\d{1,7})|#x([\da-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g,
    (all, dec, hex, name) => {
      if (name) return PREDEFINED[name as string]!
      const code = dec ? Number(dec) : parseInt(hex as string, 16)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all
    }
  )
}

function asArray(value: unknown): Node[] {
  if (value === undefined || value === null || value === '') return []
  return (Array.isArray(value) ? value : [value]).map((v) =>
    typeof v === 'object' && v ? (v as Node) : { '#text': String(v) }
  )
}
