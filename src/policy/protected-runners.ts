import { AGENT_INSTRUCTION_GLOBS } from './agent-instructions.js'
import type { ProtectedGroup } from './protected-classes.js'

/** Files that run code or steer an agent, CI or review when the repository is opened or built. */
export const RUNNER_GROUPS: readonly ProtectedGroup[] = [
  {
    name: 'agent-instructions',
    why: 'agent instruction files are obeyed by the next coding agent (and the seed code-commit) that opens the repository',
    globs: [
      // The files the repository-instructions reader sends, and other agents' (one list).
      ...AGENT_INSTRUCTION_GLOBS,
      '**/SECURITY.md',
      '**/build.sh',
      '**/codeRollup.sh',
      '**/LLMInstructions.md',
      '**/UserSpecification.md',
      '**/agent-config/**'
    ]
  },
  {
    name: 'agent-config',
    why: 'agent, MCP and editor settings start programs (MCP servers, hooks, tasks) when a developer or an agent opens the repository',
    globs: [
      '**/.claude/**',
      '**/.mcp.json',
      '**/.gemini/**',
      '**/.amazonq/**',
      '**/opencode.json',
      '**/opencode.jsonc',
      '**/.opencode/**',
      '**/.zed/**',
      '**/.continue/**',
      '**/.continuerc.json',
      '**/.roo/**',
      '**/.kiro/**',
      '**/.junie/**',
      '**/.aider*',
      '**/.cursor/**',
      '**/.windsurf/**',
      '**/.codeium/**',
      '**/.codex/**',
      '**/.agents/**',
      '**/.openhands/**',
      '**/.openhands_instructions',
      '**/.warp/**',
      '**/.crush/**',
      '**/.crush.json',
      '**/crush.json',
      '**/.helix/**',
      '**/.dir-locals.el',
      '**/.dir-locals-2.el',
      '**/.augment/**',
      '**/.kilocode/**',
      '**/.trae/**',
      '**/.qwen/**',
      '**/.vscode/**',
      '**/*.code-workspace',
      '**/.idea/**',
      '**/.fleet/**',
      '**/.nvim.lua',
      '**/.nvimrc',
      '**/.exrc'
    ]
  },
  {
    name: 'ci',
    why: 'CI configuration (workflows, actions, pipelines, deploy and update bots, CODEOWNERS) runs with the repository secrets or steers review',
    globs: [
      '**/.github/**',
      '**/CODEOWNERS',
      '**/.gitea/**',
      '**/.forgejo/**',
      '**/.gitlab-ci.yml',
      '**/.gitlab-ci.yaml',
      '**/.gitlab/**',
      '**/.travis.yml',
      '**/.circleci/**',
      '**/azure-pipelines.yml',
      '**/azure-pipelines.yaml',
      '**/.azure-pipelines/**',
      '**/.azuredevops/**',
      '**/Jenkinsfile',
      '**/Jenkinsfile.*',
      '**/*.jenkinsfile',
      '**/.jenkins/**',
      '**/bitbucket-pipelines.yml',
      '**/.drone.{yml,yaml,star,jsonnet}',
      '**/.woodpecker.{yml,yaml}',
      '**/.woodpecker/**',
      '**/appveyor.yml',
      '**/.appveyor.yml',
      '**/.cirrus.{yml,yaml,star}',
      '**/cloudbuild.{yaml,yml,json}',
      '**/.buildkite/**',
      '**/.semaphore/**',
      '**/.teamcity/**',
      '**/codemagic.{yaml,yml}',
      '**/bitrise.{yml,yaml}',
      '**/buildspec.{yml,yaml}',
      '**/.builds/**',
      '**/.tekton/**',
      '**/.harness/**',
      '**/Earthfile',
      '**/Taskfile.{yml,yaml}',
      '**/Taskfile.dist.{yml,yaml}',
      '**/Procfile',
      '**/netlify.toml',
      '**/vercel.json',
      '**/dangerfile.{js,cjs,mjs,ts,cts,mts}',
      '**/Dangerfile',
      '**/renovate.json',
      '**/renovate.json5',
      '**/.renovaterc*'
    ]
  },
  {
    name: 'git-metadata',
    why: 'git reads these: .gitmodules pulls in foreign code, .gitattributes selects filters and hides diffs from review, .gitconfig and .lfsconfig are config a repository may include, .gitignore hides files from git status',
    globs: [
      '**/.gitmodules',
      '**/gitmod~*',
      '**/.gitattributes',
      '**/.gitconfig',
      '**/.lfsconfig',
      '**/.gitignore',
      '**/.mailmap',
      '**/.git-blame-ignore-revs'
    ]
  },
  {
    name: 'hook-manager',
    why: 'hook managers run their scripts on the next commit or install',
    globs: [
      '**/.husky/**',
      '**/.githooks/**',
      '**/.lefthook/**',
      '**/lefthook.{yml,yaml,json,toml}',
      '**/.lefthook.{yml,yaml,json,toml}',
      '**/lefthook-local.{yml,yaml,json,toml}',
      '**/.pre-commit-config.yaml',
      '**/.pre-commit-hooks.yaml',
      '**/.lintstagedrc*',
      '**/lint-staged.config.*',
      '**/.simple-git-hooks*',
      '**/simple-git-hooks.*'
    ]
  },
  {
    name: 'build-wrapper',
    why: 'build wrappers download and run the build tool they name (a changed URL or checksum runs anyone’s code)',
    globs: [
      '**/gradlew',
      '**/gradlew.bat',
      '**/gradle/wrapper/**',
      '**/mvnw',
      '**/mvnw.cmd',
      '**/.mvn/**',
      '**/.bazelversion',
      '**/.bazeliskrc',
      // Bazelisk runs tools/bazel in place of Bazel; Gradle downloads the JVM this file names.
      '**/tools/bazel',
      '**/tools/bazel.{ps1,bat,cmd}',
      '**/gradle/gradle-daemon-jvm.properties'
    ]
  }
]
