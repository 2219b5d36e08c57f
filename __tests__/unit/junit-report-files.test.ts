import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  JUnitReportFiles,
  namedPaths,
  parseJUnitXml,
  REPORT_FILE_LIMITS,
  type TestReport
} from '../../src/validation/test-report/index.js'

// Real files: Maven Surefire 3.0.2 and Gradle; sources in __tests__/fixtures/test-reports/README.md.
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/test-reports/${name}`, import.meta.url), 'utf8')
const SUREFIRE = fixture('surefire-TEST-io.olamy.AlwaysFailTest.xml')
const GRADLE = fixture('gradle-TEST-TestCase1.xml')
const statuses = (report: TestReport | undefined) =>
  Object.fromEntries((report?.tests ?? []).map((t) => [t.id, t.status]))

let root: string
let outside: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'junit-files-'))
  outside = mkdtempSync(join(tmpdir(), 'junit-outside-'))
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

describe('real Surefire and Gradle report files', () => {
  it('reads a Surefire report with reruns as one failing test', () => {
    const report = parseJUnitXml(SUREFIRE)
    expect(statuses(report)).toEqual({ 'io.olamy.AlwaysFailTest.testApp': 'failed' })
    expect(report?.tests[0]?.message).toContain('built to fail')
    expect(report?.tests[0]?.message).not.toContain('ForkedBooter')
  })

  it('reads a Gradle report: failure, error, skipped and passing tests', () => {
    const c = 'com.github.onozaty.junit.xml2csv.TestCase1'
    expect(statuses(parseJUnitXml(GRADLE))).toEqual({
      [`${c}.test1`]: 'passed',
      [`${c}.test2`]: 'failed',
      [`${c}.test3`]: 'failed',
      [`${c}.test4`]: 'skipped',
      [`${c}.test5`]: 'passed'
    })
  })

  it('expands no DOCTYPE entity, decodes the predefined ones and character references', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "EXPANDED"><!ENTITY b "&a;&a;&a;&a;">]>
<testsuite><testcase classname="T" name="x&b;"><failure message="expected: &lt;5&gt; &amp; &#65;&#x42;">&b;</failure></testcase></testsuite>`
    const report = parseJUnitXml(xml)
    expect(report?.tests[0]?.id).toBe('T.x&b;')
    expect(report?.tests[0]?.message).toContain('expected: <5> & AB')
    expect(JSON.stringify(report)).not.toContain('EXPANDED')
  })
})

describe('JUnitReportFiles', () => {
  it('reads the files the command wrote in Maven, Gradle and named locations, not stale ones', async () => {
    write('target/surefire-reports/TEST-stale.xml', GRADLE)
    write('core/target/surefire-reports/TEST-io.olamy.AlwaysFailTest.xml', '<old/>')
    const files = await JUnitReportFiles.before(
      root,
      'mvn test && pytest --junitxml=reports/py.xml'
    )
    write('core/target/surefire-reports/TEST-io.olamy.AlwaysFailTest.xml', SUREFIRE)
    write('app/build/test-results/test/TEST-TestCase1.xml', GRADLE.replace(/TestCase1/g, 'Other'))
    write('reports/py.xml', fixture('pytest-junit.xml'))
    const read = await files.read()
    expect(read.files.sort()).toEqual([
      'app/build/test-results/test/TEST-TestCase1.xml',
      'core/target/surefire-reports/TEST-io.olamy.AlwaysFailTest.xml',
      'reports/py.xml'
    ])
    const ids = Object.keys(statuses(read.report))
    expect(ids).toContain('io.olamy.AlwaysFailTest.testApp')
    expect(ids).toContain('com.github.onozaty.junit.xml2csv.Other.test2')
    expect(ids).toContain('test_calc.CalcTest.test_add')
    // The stale file's tests are not the command's.
    expect(ids).not.toContain('com.github.onozaty.junit.xml2csv.TestCase1.test2')
  })

  it('counts a file rewritten with the same content and its old time put back', async () => {
    write('target/surefire-reports/TEST-a.xml', SUREFIRE)
    const files = await JUnitReportFiles.before(root, 'mvn test')
    const then = new Date(Date.now() - 60_000)
    write('target/surefire-reports/TEST-a.xml', SUREFIRE)
    utimesSync(join(root, 'target/surefire-reports/TEST-a.xml'), then, then)
    expect((await files.read()).files).toEqual(['target/surefire-reports/TEST-a.xml'])
  })

  it('refuses a report file that is a link, and a report folder that is a link', async () => {
    writeFileSync(join(outside, 'secret.xml'), SUREFIRE)
    mkdirSync(join(outside, 'surefire-reports'))
    writeFileSync(join(outside, 'surefire-reports', 'TEST-x.xml'), GRADLE)
    const files = await JUnitReportFiles.before(root, 'pytest --junit-xml reports/j.xml')
    mkdirSync(join(root, 'target/surefire-reports'), { recursive: true })
    symlinkSync(join(outside, 'secret.xml'), join(root, 'target/surefire-reports/TEST-link.xml'))
    mkdirSync(join(root, 'mod/target'), { recursive: true })
    symlinkSync(join(outside, 'surefire-reports'), join(root, 'mod/target/surefire-reports'))
    mkdirSync(join(root, 'reports'))
    symlinkSync(join(outside, 'secret.xml'), join(root, 'reports/j.xml'))
    const read = await files.read()
    expect(read.files).toEqual([])
    expect(read.report).toBeUndefined()
    expect(read.refused.join('\n')).toContain('reports/j.xml: a symbolic link')
  })

  it('passes over a linked module, target or reports folder, at any depth; finds modules two down', async () => {
    mkdirSync(join(outside, 'target/surefire-reports'), { recursive: true })
    mkdirSync(join(outside, 'test-results'), { recursive: true })
    const files = await JUnitReportFiles.before(root, 'mvn test')
    const report = (dir: string) => writeFileSync(join(dir, 'TEST-x.xml'), SUREFIRE)
    report(join(outside, 'target/surefire-reports'))
    report(join(outside, 'test-results'))
    for (const module of ['one', 'svc/two']) {
      mkdirSync(join(root, module, 'build'), { recursive: true })
      symlinkSync(join(outside, 'target'), join(root, module, 'target'))
      symlinkSync(join(outside, 'test-results'), join(root, module, 'build/test-results'))
    }
    mkdirSync(join(root, 'svc'), { recursive: true })
    symlinkSync(outside, join(root, 'svc/linked'))
    symlinkSync(outside, join(root, 'linked'))
    write('svc/three/target', 'a file, not a folder')
    write('services/api/target/surefire-reports/TEST-io.olamy.AlwaysFailTest.xml', SUREFIRE)
    write('services/web/build/test-results/test/TEST-TestCase1.xml', GRADLE)
    // A link that stays inside the work tree is passed over too: no file is read by two names.
    mkdirSync(join(root, 'inside'))
    symlinkSync(join(root, 'services/api/target'), join(root, 'inside/target'))
    const read = await files.read()
    expect(read.files.sort()).toEqual([
      'services/api/target/surefire-reports/TEST-io.olamy.AlwaysFailTest.xml',
      'services/web/build/test-results/test/TEST-TestCase1.xml'
    ])
    expect(read.refused).toEqual([])
  })

  it('takes stock within the folder cap: a module past it is not looked in', async () => {
    for (const n of [1, 2, 3]) write(`m${n}/target/surefire-reports/TEST-${n}.xml`, '<old/>')
    const limits = { ...REPORT_FILE_LIMITS, maxDirs: 3 }
    const files = await JUnitReportFiles.before(root, 'mvn test', limits)
    for (const n of [1, 2, 3]) write(`m${n}/target/surefire-reports/TEST-${n}.xml`, SUREFIRE)
    // The work tree and two of its folders (listing order is the file system's).
    const read = (await files.read()).files
    expect(read).toHaveLength(2)
    for (const path of read) expect(path).toMatch(/^m\d\/target\/surefire-reports\/TEST-\d.xml$/)
  })

  it('never names a path outside the work tree', () => {
    expect(namedPaths(root, 'pytest --junitxml=../out.xml --junit-xml /etc/passwd')).toEqual([])
    expect(namedPaths(root, `pytest --junitxml="a b/r.xml"; x --junit-xml=r2.xml`)).toEqual([
      'a b/r.xml',
      'r2.xml'
    ])
  })

  it('holds to its caps on files, bytes per file and bytes in all', async () => {
    const limits = {
      ...REPORT_FILE_LIMITS,
      maxFiles: 2,
      maxFileBytes: 15_000,
      maxTotalBytes: 20_000
    }
    const files = await JUnitReportFiles.before(root, 'mvn test', limits)
    write('target/surefire-reports/TEST-1.xml', SUREFIRE)
    write('target/surefire-reports/TEST-2.xml', SUREFIRE.replace(/AlwaysFailTest/g, 'Two'))
    write('target/surefire-reports/TEST-3.xml', GRADLE)
    write('target/surefire-reports/TEST-big.xml', `${GRADLE}<!--${'x'.repeat(15_000)}-->`)
    const read = await files.read()
    expect(read.files).toEqual(['target/surefire-reports/TEST-1.xml'])
    expect(read.refused.join('\n')).toMatch(/TEST-2.xml: over the size cap/)
    expect(read.refused.join('\n')).toMatch(/TEST-big.xml: over the size cap/)
    const many = await JUnitReportFiles.before(root, 'mvn test', { ...limits, maxTotalBytes: 1e6 })
    for (const n of [1, 2, 3])
      write(`target/surefire-reports/TEST-${n}.xml`, GRADLE + ' '.repeat(n))
    expect((await many.read()).files).toHaveLength(2)
  })

  it('masks what it reads before parsing', async () => {
    const files = await JUnitReportFiles.before(root, 'mvn test')
    write('target/surefire-reports/TEST-s.xml', SUREFIRE.replace('built to fail', 'token s3cr3t'))
    const read = await files.read((text) => text.replaceAll('s3cr3t', '***'))
    expect(read.report?.tests[0]?.message).toContain('token ***')
  })
})
