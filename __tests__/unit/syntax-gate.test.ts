import { describe, expect, it } from 'vitest'
import { GRAMMARS } from '../../src/edits/syntax/languages.js'
import { loadLanguage } from '../../src/edits/syntax/loader.js'
import { syntaxGate } from '../../src/edits/syntax/index.js'

const gate = syntaxGate()

/** A valid file per language, and a model mistake in it: the problem's line, and its message. */
interface Case {
  path: string
  language: string
  valid: string
  broken: string
  line: number
  message: RegExp
}

const lines = (...text: string[]) => text.join('\n') + '\n'

const JS = lines(
  "import { readFile } from 'node:fs/promises'",
  '',
  'export async function load(path) {',
  "  const text = await readFile(path, 'utf8')",
  '  return JSON.parse(text)',
  '}'
)

const PY = lines(
  'import json',
  '',
  '',
  'def load(path):',
  '    with open(path) as f:',
  '        data = json.load(f)',
  '    return data',
  ''
)

const CASES: Case[] = [
  {
    path: 'src/load.js',
    language: 'javascript',
    valid: JS,
    broken: JS + '}\n',
    line: 7,
    message: /unexpected `}`/
  },
  {
    path: 'src/load.mjs',
    language: 'javascript',
    valid: JS,
    broken: JS.replace('export async', '```\nexport async'),
    line: 3,
    message: /Markdown fence/
  },
  {
    path: 'lib/load.cjs',
    language: 'javascript',
    valid: "const fs = require('fs')\nmodule.exports = (p) => fs.readFileSync(p, 'utf8')\n",
    broken: "const fs = require('fs')\nmodule.exports = (p) => fs.readFileSync(p, 'utf8'\n",
    line: 2,
    message: /missing `\)`|unexpected/
  },
  {
    path: 'ui/Button.jsx',
    language: 'javascript',
    valid: lines('export function Button({ label }) {', '  return <button>{label}</button>', '}'),
    broken: lines('export function Button({ label }) {', '  return <button>{label}</button', '}'),
    line: 2,
    message: /syntax error at line 2/
  },
  {
    path: 'src/sum.ts',
    language: 'typescript',
    valid: lines(
      'export function sum(values: number[]): number {',
      '  let total = 0',
      '  for (const value of values) {',
      '    total += value',
      '  }',
      '  return total',
      '}'
    ),
    broken: lines(
      'export function sum(values: number[]): number {',
      '  let total = 0',
      '  for (const value of values {',
      '    total += value',
      '  }',
      '  return total',
      '}'
    ),
    line: 3,
    message: /syntax error at line 3/
  },
  {
    path: 'ui/Card.tsx',
    language: 'tsx',
    valid: lines(
      'export const Card = ({ title }: { title: string }) => (',
      '  <div className="card">',
      '    <h2>{title}</h2>',
      '  </div>',
      ')'
    ),
    broken: lines(
      'export const Card = ({ title }: { title: string }) => (',
      '  <div className="card">',
      '    <h2>{title}</h2>',
      '  </div>',
      ')',
      'export const Empty = () => <div'
    ),
    line: 6,
    message: /syntax error at line 6/
  },
  {
    path: 'app/load.py',
    language: 'python',
    valid: PY,
    broken: PY.replace('    return data', '      return data'),
    line: 7,
    message: /indentation error at line 7: unindent does not match/
  },
  {
    path: 'app/load.pyi',
    language: 'python',
    valid: 'def load(path: str) -> dict: ...\n',
    broken: 'def load(path: str) -> dict: ...\ndef save(path: str, data: dict\n',
    line: 2,
    message: /syntax error at line 2/
  },
  {
    path: 'main.go',
    language: 'go',
    valid: lines(
      'package main',
      '',
      'import "fmt"',
      '',
      'func main() {',
      '\tfmt.Println("hi")',
      '}'
    ),
    broken: lines(
      'package main',
      '',
      'import "fmt"',
      '',
      'func main() {',
      '\tfmt.Println("hi"',
      '}'
    ),
    line: 6,
    message: /missing `\)`/
  },
  {
    path: 'src/Main.java',
    language: 'java',
    valid: lines('class Main {', '  int twice(int x) {', '    return x * 2;', '  }', '}'),
    broken: lines('class Main {', '  int twice(int x) {', '    return x * 2', '  }', '}'),
    line: 3,
    message: /missing `;`/
  },
  {
    path: 'src/list.c',
    language: 'c',
    valid: lines(
      '#include <stdlib.h>',
      '',
      'int sum(const int *v, int n) {',
      '  int s = 0;',
      '  for (int i = 0; i < n; i++) s += v[i];',
      '  return s;',
      '}'
    ),
    broken: lines(
      '#include <stdlib.h>',
      '',
      'int sum(const int *v, int n) {',
      '  int s = 0;',
      '  for (int i = 0; i < n; i++) s += v[i];',
      '  return s;',
      '}',
      '}'
    ),
    line: 8,
    message: /unexpected `}`/
  },
  {
    path: 'include/list.h',
    language: 'c',
    valid: 'int sum(const int *v, int n);\n',
    broken: 'int sum(const int *v, int n);\nint product(const int *v,\n',
    line: 2,
    message: /syntax error at line 2/
  },
  {
    path: 'src/shape.cpp',
    language: 'cpp',
    valid: lines(
      '#include <vector>',
      '',
      'namespace geo {',
      'struct Shape {',
      '  virtual ~Shape() = default;',
      '  virtual double area() const = 0;',
      '};',
      '}  // namespace geo'
    ),
    broken: lines(
      '#include <vector>',
      '',
      'namespace geo {',
      'struct Shape {',
      '  virtual ~Shape() = default;',
      '  virtual double area() const = 0;',
      '}',
      '}  // namespace geo'
    ),
    line: 7,
    message: /missing `;`/
  },
  {
    path: 'src/Greeter.cs',
    language: 'csharp',
    valid: lines(
      'namespace App;',
      '',
      'public class Greeter',
      '{',
      '    public string Greet(string name) => $"Hello {name}";',
      '}'
    ),
    broken: lines(
      'namespace App;',
      '',
      'public class Greeter',
      '{',
      '    public string Greet(string name) => $"Hello {name}";',
      '    public string Bye(string name) =>'
    ),
    line: 6,
    message: /syntax error at line 6/
  },
  {
    path: 'lib/greeter.rb',
    language: 'ruby',
    valid: lines('class Greeter', '  def greet(name)', '    "Hello #{name}"', '  end', 'end'),
    // A stray extra `end` parses cleanly with tree-sitter-ruby; a missing one does not.
    broken: lines('class Greeter', '  def greet(name)', '    "Hello #{name}"', '  end'),
    line: 4,
    message: /unexpected end of file \(what began at line 1 is not closed\)/
  },
  {
    path: 'src/lib.rs',
    language: 'rust',
    valid: lines('pub fn sum(values: &[i64]) -> i64 {', '    values.iter().sum()', '}'),
    broken: lines('pub fn sum(values: &[i64]) -> i64 {', '    values.iter(.sum()', '}'),
    line: 2,
    message: /syntax error at line 2/
  },
  {
    path: 'src/greet.php',
    language: 'php',
    valid: lines(
      '<?php',
      '',
      'function greet(string $name): string {',
      '    return "Hello $name";',
      '}'
    ),
    broken: lines(
      '<?php',
      '',
      'function greet(string $name): string {',
      '    return "Hello $name"',
      '}'
    ),
    line: 4,
    message: /syntax error at line 4/
  },
  {
    path: 'config/app.json',
    language: 'json',
    valid: lines('{', '  "name": "app",', '  "port": 8080', '}'),
    broken: lines('{', '  "name": "app"', '  "port": 8080', '}'),
    line: 2,
    message: /syntax error at line 2/
  },
  {
    path: '.github/workflows/ci.yml',
    language: 'yaml',
    valid: lines(
      'on: push',
      'jobs:',
      '  test:',
      '    runs-on: ubuntu-latest',
      '    steps: [checkout, test]'
    ),
    broken: lines(
      'on: push',
      'jobs:',
      '  test:',
      '    runs-on: ubuntu-latest',
      '    steps: [checkout, test'
    ),
    line: 5,
    message: /syntax error at line 5/
  },
  {
    path: 'deploy/values.yaml',
    language: 'yaml',
    valid: lines('image:', '  name: app', '  tag: "1.0"'),
    broken: lines('image:', '  name: app', '  tag: "1.0"', '```'),
    line: 4,
    message: /Markdown fence/
  }
]

describe('syntax gate', () => {
  it('loads web-tree-sitter and every grammar from the dev tree', async () => {
    for (const language of Object.keys(GRAMMARS)) {
      expect(await loadLanguage(language), language).not.toBeNull()
    }
  })

  it('knows no language for other files and passes them', async () => {
    for (const path of ['notes.txt', 'README.md', 'Makefile', 'src/x.ts.orig']) {
      expect(gate.languageOf(path)).toBeNull()
      expect(await gate.introducedError(path, 'a', 'a {\n```\n')).toBeNull()
    }
    expect(gate.languageOf('src/App.TSX')).toBe('tsx')
  })

  it('leaves JSON with comments and trailing commas (tsconfig, editor settings) to its tools', async () => {
    const jsonc = '{\n  // strict\n  "strict": true,\n}\n'
    for (const path of [
      'tsconfig.json',
      'packages/a/tsconfig.build.json',
      'jsconfig.json',
      '.vscode/settings.json'
    ])
      expect(await gate.introducedError(path, '{}\n', jsonc), path).toBeNull()
    expect(await gate.introducedError('package.json', '{}\n', jsonc)).not.toBeNull()
  })

  it('passes a file that was already broken, and one left as it was', async () => {
    const broken = 'function f( {\n'
    expect(await gate.introducedError('a.js', broken, broken + 'const x = [\n')).toBeNull()
    expect(await gate.introducedError('a.js', broken, broken)).toBeNull()
    expect(await gate.introducedError('a.py', 'x = 1\n  y = 2\n', 'x = 1\n  y = 3\n')).toBeNull()
  })

  it('holds a file that was already broken to what it was: an edit may not add parse errors', async () => {
    // A C file tree-sitter cannot read whole (a macro it cannot expand), as half of real C is.
    const c = lines(
      '#include <stdio.h>',
      '',
      'FOR_EACH(item, list) {',
      '  puts(item);',
      '}',
      '',
      'int add(int a, int b) {',
      '  int sum = a + b;',
      '  return sum;',
      '}',
      '',
      'int twice(int a) {',
      '  return add(a, a);',
      '}'
    )
    expect(await gate.introducedError('m.c', null, c)).not.toBeNull()
    const fine = c.replace('  return sum;', '  sum = sum * 1;\n  return sum;')
    expect(await gate.introducedError('m.c', c, fine)).toBeNull()
    const unclosed = c.replace('  return sum;\n}', '  return sum;')
    const problem = await gate.introducedError('m.c', c, unclosed)
    expect(problem?.line).toBeGreaterThanOrEqual(9)
  })

  it('checks a new file alone', async () => {
    expect(await gate.introducedError('new.go', null, 'package main\n\nfunc main() {\n')).toEqual({
      line: 3,
      column: 13,
      message: 'syntax error at line 3: unexpected `{`'
    })
  })

  it('finds the indentation errors tree-sitter-python lets through', async () => {
    const check = (text: string) => gate.introducedError('m.py', null, text)
    expect(await check('def f(x):\n    y = 1\n        return y\n')).toMatchObject({
      line: 3,
      message: 'indentation error at line 3: unexpected indent'
    })
    expect(await check('import os\n\n\ndef f(x):\n# nothing yet\n\nreturn x\n')).toMatchObject({
      line: 7,
      message:
        'indentation error at line 7: expected an indented block after function definition on line 4'
    })
    expect(await check('x = 1\n  y = 2\n')).toMatchObject({ line: 2, message: /unexpected indent/ })
    const fine = 'if x: a = 1; b = 2\nelse:\n    pass\n\nclass A:\n    # c\n    x = (1,\n  2)\n'
    expect(await check(fine)).toBeNull()
  })

  it('takes fence lines inside strings and comments for text', async () => {
    const py = 'PROMPT = """\nReply with:\n```diff\n...\n```\n"""\n'
    expect(await gate.introducedError('p.py', null, py)).toBeNull()
    const js = 'const prompt = `\n\\`\\`\\`\n`\n/*\n```\n*/\n'
    expect(await gate.introducedError('p.js', null, js)).toBeNull()
    const yml = 'run: |\n  echo "```"\n  cat <<EOF\n  ```\n  EOF\n'
    expect(await gate.introducedError('ci.yml', null, yml)).toBeNull()
    // Two fences pair up as tagged template literals in JS: clean to the parser, still refused.
    const paired = 'const a = 1\n```js\nconst b = 2\n```\n'
    expect(await gate.introducedError('p.js', null, paired)).toMatchObject({
      line: 2,
      message: 'syntax error at line 2: a Markdown fence (```) in the code'
    })
  })

  // How fast the gate parses is bench:scale's to measure; a timed assertion here would fail on a loaded machine.
  it('skips files over 2 MB and still judges a 1 MB file', async () => {
    const big = 'x = 1\n'.repeat(400_000)
    expect(await gate.introducedError('big.py', null, big + 'def f(\n')).toBeNull()
    const chunk = JS.replace('load', 'load0')
    const meg = Array.from({ length: Math.ceil(1e6 / chunk.length) }, (_, i) =>
      chunk.replace('load0', `load${i}`).replace(/^import .*\n/, '')
    ).join('\n')
    expect(await gate.introducedError('big.js', null, meg)).toBeNull()
    expect(await gate.introducedError('big.js', meg, meg + '}\n')).toMatchObject({ message: /`}`/ })
  })

  it.each(CASES)('$path: valid passes, a mistake is found at its line', async (c) => {
    expect(gate.languageOf(c.path)).toBe(c.language)
    expect(await gate.introducedError(c.path, null, c.valid)).toBeNull()
    const problem = await gate.introducedError(c.path, c.valid, c.broken)
    expect(problem?.line).toBe(c.line)
    expect(problem?.message).toMatch(c.message)
  })
})
