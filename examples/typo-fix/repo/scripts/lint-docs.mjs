// A tiny docs linter: fails on common misspellings in Markdown files.
import { readdirSync, readFileSync } from 'node:fs'

const TYPOS = { teh: 'the', recieve: 'receive', adn: 'and', wich: 'which' }
const problems = []
for (const file of readdirSync('.').filter((name) => name.endsWith('.md'))) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      for (const word of line.toLowerCase().match(/[a-z]+/g) ?? []) {
        if (TYPOS[word]) problems.push(`${file}:${index + 1}: '${word}' should be '${TYPOS[word]}'`)
      }
    })
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}
console.log('✓ All files pass linting')
