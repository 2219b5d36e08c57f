import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { FRUIT_BRANCH, fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

// A Maven-like test command: it prints only a summary no runner parser reads, and writes the
// per-test record where Surefire does. isKiwi fails until fruit.txt says kiwi; isFruit passes.
const REPORT = 'target/surefire-reports/TEST-FruitTest.xml'
const SCRIPT = `fruit=$(cat fruit.txt)
mkdir -p target/surefire-reports
if [ "$fruit" = kiwi ]; then kiwi='<testcase name="isKiwi" classname="FruitTest" time="0.01"/>'; code=0
else kiwi="<testcase name=\\"isKiwi\\" classname=\\"FruitTest\\" time=\\"0.01\\"><failure message=\\"expected: &lt;kiwi&gt; but was: &lt;$fruit&gt;\\" type=\\"org.opentest4j.AssertionFailedError\\"/></testcase>"; code=1; fi
cat > ${REPORT} <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="FruitTest" time="0.02" tests="2" errors="0" skipped="0" failures="$code">
$kiwi
<testcase name="isFruit" classname="FruitTest" time="0.01"/>
</testsuite>
XML
echo "[INFO] Tests run: 2, Failures: $code"
exit $code
`
// What the repository had committed in the report's place: a stale run where all passed.
const STALE = `<testsuite name="FruitTest" tests="2"><testcase name="isKiwi" classname="FruitTest"/><testcase name="isFruit" classname="FruitTest"/></testsuite>\n`

describe('JUnit XML files a validation command writes', () => {
  it('lists the test the change fixed from a Surefire report file, and never commits the file', async () => {
    const repo = fruitRepo({ 'mvn-test.sh': SCRIPT, [REPORT]: STALE })
    cleanups.push(() => repo.cleanup())
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': 'sh mvn-test.sh'
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const [commit] = run.result.data!
    expect(commit!.proof).toEqual([
      {
        command: 'sh mvn-test.sh',
        base: 'failed',
        after: 'passed',
        runner: 'junit',
        fixed: ['FruitTest.isKiwi'],
        broken: [],
        unrelated: []
      }
    ])
    expect(commit!.verification_passed).toBe(true)
    // The tracked report that validation rewrote is put back, and is not in the commit.
    expect(readFileSync(`${repo.dir}/${REPORT}`, 'utf8')).toBe(STALE)
    expect(repo.gitOrigin('diff', '--name-only', `${run.baseSha}..${FRUIT_BRANCH}`)).toBe(
      'fruit.txt'
    )
  })

  it('reads the path a pytest-style --junitxml names, and removes the untracked file after', async () => {
    const script = SCRIPT.replaceAll(REPORT, '"$1"').replace(
      'mkdir -p target/surefire-reports',
      'mkdir -p "$(dirname "$1")"'
    )
    const repo = fruitRepo({ 'junit.sh': script })
    cleanups.push(() => repo.cleanup())
    const command = 'sh junit.sh reports/junit.xml # --junitxml=reports/junit.xml'
    const run = await runOnFruit(
      repo,
      fruitReplies([swap('apple', 'banana'), swap('banana', 'kiwi')]),
      {
        'validation-commands': command
      }
    )
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.result.data![0]!.proof).toMatchObject([
      { command, base: 'failed', after: 'passed', runner: 'junit', fixed: ['FruitTest.isKiwi'] }
    ])
    // The repair was told which test still failed, by its id from the file.
    expect(JSON.stringify(run.server.requests[1]!.body)).toContain('FruitTest.isKiwi')
    expect(existsSync(`${repo.dir}/reports/junit.xml`)).toBe(false)
  })
})
