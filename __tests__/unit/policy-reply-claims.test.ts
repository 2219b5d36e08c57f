import { describe, expect, it } from 'vitest'
import { SecurityViolationError } from '../../src/contract/index.js'
import { thrown } from '../support/errors.js'
import { readReply } from '../../src/edits/index.js'
import { diffPaths, guardReplyClaims, PathPolicy } from '../../src/policy/index.js'

const policy = new PathPolicy()

/** As the agent does: the reply read once by its format, then its claims judged. */
const guardReply = (text: string, judge = policy) =>
  guardReplyClaims(readReply('udiff', text).claims, judge)
const sectionsOf = (text: string) => readReply('udiff', text).claims.sections

function refusal(text: string): SecurityViolationError {
  try {
    guardReply(text)
  } catch (error) {
    expect(error).toBeInstanceOf(SecurityViolationError)
    return error as SecurityViolationError
  }
  throw new Error(`expected the diff to be refused:\n${text}`)
}

const hunk = '@@ -1 +1 @@\n-SECRET=hunter2\n+SECRET=attacker\n'
const create = '@@ -0,0 +1 @@\n+evil\n'

describe('the claims of a diff reply, judged by the path policy (SECURITY.md 4.1 and section (b))', () => {
  it.each([
    // T01: traversal in every name source.
    [
      'dotdot git',
      `diff --git a/../evil.txt b/../evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/../evil.txt\n${create}`,
      'path-traversal'
    ],
    ['dotdot plain', `--- /dev/null\n+++ b/../evil.txt\n${create}`, 'path-traversal'],
    ['dotdot inner', `--- a/src/../.env\n+++ b/src/../.env\n${hunk}`, 'path-traversal'],
    // T05: -p1 stripping of a traditional diff would name .env.
    ['T05 zz/.env', `--- zz/.env\n+++ zz/.env\n${hunk}`, 'blocked-path'],
    ['T05 x/.ENV.local', `--- x/.ENV.local\n+++ x/.ENV.local\n${hunk}`, 'blocked-path'],
    // T06: a traditional diff with an absolute +++ name.
    [
      'T06 absolute',
      `--- /dev/null\n+++ /.github/workflows/pwn.yml\n@@ -0,0 +1 @@\n+on: push\n`,
      'absolute-path'
    ],
    [
      'T06 stripped',
      `--- /dev/null\n+++ x/.github/workflows/pwn.yml\n@@ -0,0 +1 @@\n+on: push\n`,
      'protected-path'
    ],
    // T07: the ---/+++ names disagree with diff --git.
    ['T07', `diff --git a/src/a.js b/src/a.js\n--- a/.env\n+++ b/.env\n${hunk}`, 'patch-parse'],
    [
      'T07 other file',
      `diff --git a/src/a.js b/src/a.js\n--- a/src/b.js\n+++ b/src/b.js\n${hunk}`,
      'patch-parse'
    ],
    ['T07 old vs new', `--- a/src/a.js\n+++ b/src/b.js\n${hunk}`, 'patch-parse'],
    [
      'git rename names',
      `diff --git a/src/a.js b/docs/a.js\n--- a/src/a.js\n+++ b/docs/a.js\n${hunk}`,
      'patch-parse'
    ],
    // T08 and T12: quoted (C-escaped) names.
    [
      'T08',
      `diff --git "a/\\056env" "b/\\056env"\n--- "a/\\056env"\n+++ "b/\\056env"\n${hunk}`,
      'patch-parse'
    ],
    ['T08 plain', `--- "a/\\056env"\n+++ "b/\\056env"\n${hunk}`, 'patch-parse'],
    [
      'T12 newline',
      `diff --git "a/src/x\\ny" "b/src/x\\ny"\nnew file mode 100644\n--- /dev/null\n+++ "b/src/x\\ny"\n${create}`,
      'patch-parse'
    ],
    ['T12 raw RLO', `--- /dev/null\n+++ b/src/\u202Egpj.js\n${create}`, 'path-charset'],
    [
      'T12 raw tab',
      `diff --git a/src/x\ty b/src/x\ty\n--- /dev/null\n+++ b/src/x\ty\n${create}`,
      'patch-parse'
    ],
    // T15: .git in every form.
    [
      'T15',
      `diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100644\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n${create}`,
      'git-directory'
    ],
    [
      'T15 exec mode',
      `diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n${create}`,
      'patch-mode'
    ],
    ['T15 case', `--- /dev/null\n+++ b/.GIT/hooks/pre-commit\n${create}`, 'git-directory'],
    ['T15 ntfs', `--- /dev/null\n+++ b/git~1/config\n${create}`, 'git-directory'],
    ['T15 dot', `--- /dev/null\n+++ b/.git./config\n${create}`, 'git-directory'],
    ['T15 sub', `--- /dev/null\n+++ b/sub/.git/config\n${create}`, 'git-directory'],
    ['T15 backslash', `--- /dev/null\n+++ b/.git\\hooks\\pre-commit\n${create}`, 'path-charset'],
    // T17: gitlink and .gitmodules.
    [
      'T17 gitlink',
      `diff --git a/vendor/evil b/vendor/evil\nnew file mode 160000\nindex 0000000..1111111\n--- /dev/null\n+++ b/vendor/evil\n@@ -0,0 +1 @@\n+Subproject commit 1111111111111111111111111111111111111111\n`,
      'patch-mode'
    ],
    [
      'T17 gitlink index',
      `diff --git a/vendor/evil b/vendor/evil\nindex 1111111..2222222 160000\n--- a/vendor/evil\n+++ b/vendor/evil\n${hunk}`,
      'patch-mode'
    ],
    [
      'T17 gitmodules',
      `--- /dev/null\n+++ b/.gitmodules\n@@ -0,0 +1,3 @@\n+[submodule "x"]\n+path=vendor/x\n+url=https://attacker.example/x.git\n`,
      'protected-path'
    ],
    // T20, T21: symlinks.
    [
      'T20',
      `diff --git a/lnk b/lnk\nnew file mode 120000\n--- /dev/null\n+++ b/lnk\n@@ -0,0 +1 @@\n+/home/runner/work/_temp\n\\ No newline at end of file\ndiff --git a/lnk/pwned.txt b/lnk/pwned.txt\nnew file mode 100644\n--- /dev/null\n+++ b/lnk/pwned.txt\n${create}`,
      'patch-mode'
    ],
    [
      'T21',
      `diff --git a/docs/env.txt b/docs/env.txt\nnew file mode 120000\n--- /dev/null\n+++ b/docs/env.txt\n@@ -0,0 +1 @@\n+../.env\n\\ No newline at end of file\n`,
      'patch-mode'
    ],
    [
      'T21 index',
      `diff --git a/docs/env.txt b/docs/env.txt\nindex 1111111..2222222 120000\n--- a/docs/env.txt\n+++ b/docs/env.txt\n${hunk}`,
      'patch-mode'
    ],
    // T24, T25: copies and renames.
    [
      'T24',
      `diff --git a/.env b/docs/leak.txt\nsimilarity index 100%\ncopy from .env\ncopy to docs/leak.txt\n`,
      'patch-copy-rename'
    ],
    [
      'T25',
      `diff --git a/.git/config b/docs/cfg.txt\nsimilarity index 100%\ncopy from .git/config\ncopy to docs/cfg.txt\n`,
      'patch-copy-rename'
    ],
    [
      'rename',
      `diff --git a/config/secrets/prod.json b/public/prod.json\nsimilarity index 100%\nrename from config/secrets/prod.json\nrename to public/prod.json\n`,
      'patch-copy-rename'
    ],
    // Names and asks a reply gives in sections that apply nothing, or that stop it being read.
    [
      'a bare diff --git line',
      `--- a/src/a.js\n+++ b/src/a.js\n${hunk}diff --git a/.env b/.env\n`,
      'blocked-path'
    ],
    [
      'a header-only section first',
      `diff --git a/.env b/.env\n--- a/.env\n+++ b/.env\ndiff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n${hunk}`,
      'blocked-path'
    ],
    [
      'a mode change beside a hunkless section',
      `diff --git a/src/a.js b/src/a.js\nold mode 100644\nnew mode 100755\ndiff --git a/src/b.js b/src/b.js\n--- a/src/b.js\n+++ b/src/b.js\n`,
      'patch-mode'
    ],
    [
      'a malformed file mode line',
      `diff --git a/src/a.js b/src/a.js\nnew file mode  120000\n--- /dev/null\n+++ b/src/a.js\n${create}`,
      'patch-parse'
    ],
    [
      'dissimilarity',
      `diff --git a/a.txt b/a.txt\ndissimilarity index 90%\n${hunk}`,
      'patch-copy-rename'
    ],
    // T28, T29: modes and binaries.
    ['T28', `diff --git a/src/a.js b/src/a.js\nold mode 100644\nnew mode 100755\n`, 'patch-mode'],
    ['T28 new only', `diff --git a/src/a.js b/src/a.js\nnew mode 100755\n${hunk}`, 'patch-mode'],
    [
      'new exec',
      `diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n${create}`,
      'patch-mode'
    ],
    [
      'T29',
      `diff --git a/tool.exe b/tool.exe\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 20\nzcmZ?wbhEHbRA5kG00002\n\nliteral 0\nHcmV?d00001\n`,
      'patch-binary'
    ],
    [
      'T29 summary',
      `diff --git a/tool.exe b/tool.exe\nBinary files /dev/null and b/tool.exe differ\n`,
      'patch-binary'
    ],
    // T30, T31: protected paths named anywhere.
    [
      'T30',
      `diff --git a/.github/CODEOWNERS b/.github/CODEOWNERS\ndeleted file mode 100644\n--- a/.github/CODEOWNERS\n+++ /dev/null\n@@ -1 +0,0 @@\n-* @org/team\n`,
      'protected-path'
    ],
    ['T30 security', `--- a/SECURITY.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`, 'protected-path'],
    [
      'T31',
      `diff --git a/.github/workflows/pwn.yml b/.github/workflows/pwn.yml\nnew file mode 100644\n--- /dev/null\n+++ b/.github/workflows/pwn.yml\n@@ -0,0 +1 @@\n+on: push\n`,
      'protected-path'
    ],
    ['not diff --git', `diff -u a.txt b.txt\n--- a.txt\n+++ b.txt\n${hunk}`, 'patch-parse']
  ])('refuses %s', (_name, text, rule) => {
    const error = refusal(text)
    expect(error.details.rule).toBe(rule)
    expect(error.code).toBe('SECURITY_VIOLATION')
  })

  it.each([
    [
      'git style',
      `diff --git a/src/a.js b/src/a.js\nindex 83db48f..bf269f4 100644\n--- a/src/a.js\n+++ b/src/a.js\n${hunk}`
    ],
    ['plain a/ b/', `--- a/src/a.js\n+++ b/src/a.js\n${hunk}`],
    ['no prefix', `--- src/a.js\n+++ src/a.js\n${hunk}`],
    [
      'with timestamps',
      `--- src/a.js\t2024-01-01 00:00:00\n+++ src/a.js\t2024-01-02 00:00:00\n${hunk}`
    ],
    ['bare hunk', `@@ -1 +1 @@\n-a\n+b\n`],
    [
      'new file',
      `diff --git a/src/n.ts b/src/n.ts\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/src/n.ts\n${create}`
    ],
    [
      'deleted executable',
      `diff --git a/bin/x b/bin/x\ndeleted file mode 100755\n--- a/bin/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`
    ],
    [
      'a name with spaces',
      `diff --git a/docs/a b.md b/docs/a b.md\n--- a/docs/a b.md\n+++ b/docs/a b.md\n${hunk}`
    ],
    ['a removed SQL comment', `--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1 @@\n--- drop\n select 1\n`],
    ['prose between files', `Here it is:\n--- a/a.txt\n+++ b/a.txt\n${hunk}`],
    [
      'prose after a diff that starts like a header',
      `--- a/a.txt\n+++ b/a.txt\n${hunk}\nBinary files are not affected by this change.\n`
    ],
    [
      'a removed SQL comment after a context line that lost its space',
      `--- a/q.sql\n+++ b/q.sql\n@@ -1,4 +1,4 @@\n select 1;\nselect 2;\n--- old comment\n+-- new comment\n select 3;\n`
    ],
    [
      'a trailing blank after diff --git',
      `diff --git a/src/a.js b/src/a.js \n--- a/src/a.js\n+++ b/src/a.js\n${hunk}`
    ],
    [
      'upper-case hashes on the index line',
      `diff --git a/src/a.js b/src/a.js\nindex 83DB48F..BF269F4 100644\n--- a/src/a.js\n+++ b/src/a.js\n${hunk}`
    ],
    ['CRLF', `--- a/a.txt\r\n+++ b/a.txt\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n`]
  ])('accepts %s', (_name, text) => {
    expect(() => guardReply(text)).not.toThrow()
  })

  it('sees what a reply asks wherever the reply puts it: after a real hunk, or in headers alone', () => {
    const binaryAfter = `Here is the fix:\n\n\`\`\`diff\n--- a/src/a.js\n+++ b/src/a.js\n${hunk}diff --git a/tool.exe b/tool.exe\nnew file mode 100644\nGIT binary patch\nliteral 20\nzcmZ?wbhEHbRA5kG00002\n\`\`\`\n`
    expect(refusal(binaryAfter).details.rule).toBe('patch-binary')
    const copyAlone = `I copied it:\n\`\`\`\ndiff --git a/.env b/docs/leak.txt\nsimilarity index 100%\ncopy from .env\ncopy to docs/leak.txt\n\`\`\`\n`
    expect(refusal(copyAlone).details.rule).toBe('patch-copy-rename')
  })

  it('leaves prose that merely starts like a git header to the applier (INVALID_DIFF, repairable)', () => {
    for (const reply of [
      'rename from a.txt\nrename to b.txt\n',
      'Binary files cannot be edited with a text diff, so I left src/a.ts unchanged.\n',
      'I cannot do that.\ncopy from the other module is not possible\n'
    ]) {
      const read = readReply('udiff', reply)
      expect(() => guardReplyClaims(read.claims, policy)).not.toThrow()
      expect(read.refusal?.code).toBe('INVALID_DIFF')
    }
  })

  it('judges the paths other formats name, as it judges diff headers', () => {
    const judge = (format: 'whole-file' | 'search-replace', reply: string) =>
      thrown(() => guardReplyClaims(readReply(format, reply).claims, policy))
    expect(judge('whole-file', '^^^.env\nSECRET=x\n^^^end\n')).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'blocked-path' }
    })
    const workflow =
      '.github/workflows/ci.yml\n<<<<<<< SEARCH\non: push\n=======\non: [push, pull_request_target]\n>>>>>>> REPLACE\n'
    expect(judge('search-replace', workflow)).toMatchObject({ details: { rule: 'protected-path' } })
    expect(() =>
      guardReplyClaims(readReply('whole-file', '^^^src/a.js\nb\n^^^end\n').claims, policy)
    ).not.toThrow()
  })

  it('reads unprefixed names both ways git may read them', () => {
    const sections = sectionsOf(`--- zz/src/a.js\n+++ zz/src/a.js\n${hunk}`)
    expect(diffPaths(sections).sort()).toEqual(['src/a.js', 'zz/src/a.js'])
    expect(diffPaths(sectionsOf(`--- a/x.md\n+++ b/x.md\n${hunk}`))).toEqual(['x.md'])
  })

  it('allows protected names a maintainer opted in to', () => {
    const opted = new PathPolicy({ allowProtected: ['.github/workflows/*.yml'] })
    const text = `--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n${hunk}`
    expect(() => guardReply(text, opted)).not.toThrow()
    expect(refusal(text).details.rule).toBe('protected-path')
  })
})
