import { leafName, normaliseOutput } from '../test-report/index.js'

/**
 * Whether the issue or plan text names a failure: its test id or name (as a word), its test
 * file, or a line of its failure text the issue quotes.
 */
export function namedBy(
  text: string,
  failure: { id: string; file?: string; message?: string }
): boolean {
  if (!text) return false
  const lower = text.toLowerCase()
  const names = [failure.id, leafName(failure.id), ...fileNames(failure.file ?? failure.id)]
  if (names.some((name) => name.length >= 3 && asWord(lower, name.toLowerCase()))) return true
  const message = (failure.message ?? '').toLowerCase()
  if (!message) return false
  const issue = normaliseOutput(text).toLowerCase()
  const lines = message.split('\n').map((line) => line.trim())
  return (
    lines.some((line) => line.length >= 12 && issue.includes(line)) ||
    quotes(issue).some((q) => message.includes(q))
  )
}

/** What the issue quotes: `code`, "text" and 'text' spans, and the lines of fenced blocks. */
function quotes(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`|"([^"\n]+)"|'([^'\n]+)'/g)].map(
    (m) => (m[1] ?? m[2] ?? m[3])!
  )
  const fenced = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'))
  return [...spans, ...fenced].map((q) => q.trim()).filter((q) => q.length >= 12)
}

/** "tests/test_calc.py", "test_calc.py" and "test_calc" from a file or a dotted/colon id. */
function fileNames(where: string): string[] {
  const path = where.split('::')[0]!
  const base = path.split('/').pop() ?? path
  if (/\.\w+$/.test(base)) {
    const stem = base.replace(/\.\w+$/, '').replace(/\.(test|spec)$/, '')
    return [path, base, ...(stem.length >= 5 ? [stem] : [])]
  }
  // unittest's "test_calc.CalcTest.test_add": the module is the file.
  const module = where.split('.')[0] ?? ''
  return module.length >= 5 && module !== where ? [module, `${module}.py`] : []
}

function asWord(text: string, word: string): boolean {
  let from = 0
  for (;;) {
    const at = text.indexOf(word, from)
    if (at < 0) return false
    const before = text[at - 1] ?? ' '
    const after = text[at + word.length] ?? ' '
    if (!/[\w]/.test(before) && !/[\w]/.test(after)) return true
    from = at + 1
  }
}
