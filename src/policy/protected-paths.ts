/**
 * Files that steer execution, CI, review or other agents. The agent may change them only when a
 * maintainer opts in with `allow-protected-paths`; each group names why it is protected.
 */
export interface ProtectedGroup {
  name: string
  why: string
  globs: readonly string[]
}

export const PROTECTED_GROUPS: readonly ProtectedGroup[] = [
  {
    name: 'ci',
    why: 'workflows, actions, CODEOWNERS and agent instructions under .github run with the repository secrets or steer review',
    globs: [
      '.github/**',
      '**/CODEOWNERS',
      '**/.gitlab-ci.yml',
      '**/.gitlab/**',
      '**/.travis.yml',
      '**/.circleci/**',
      '**/.buildkite/**',
      '**/bitbucket-pipelines.yml',
      '**/netlify.toml',
      '**/vercel.json',
      '**/renovate.json',
      '**/renovate.json5',
      '**/.renovaterc*',
      '**/azure-pipelines.yml',
      '**/Jenkinsfile'
    ]
  },
  {
    name: 'git-metadata',
    why: '.gitmodules pulls in foreign code, .gitattributes selects filters and hides diffs from review, .gitconfig and .lfsconfig are git config a repository may include, .gitignore hides files from git status',
    globs: [
      '**/.gitmodules',
      '**/gitmod~*',
      '**/.gitattributes',
      '**/.gitconfig',
      '**/.lfsconfig',
      '**/.gitignore',
      '**/.mailmap'
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
    name: 'package-manager',
    why: 'package manager settings and lockfiles decide what is installed and run',
    globs: [
      '**/.npmrc',
      '**/.yarnrc',
      '**/.yarnrc.yml',
      '**/.yarn/**',
      '**/.pnpmfile.cjs',
      '**/pnpm-workspace.yaml',
      '**/bunfig.toml',
      '**/package-lock.json',
      '**/npm-shrinkwrap.json',
      '**/yarn.lock',
      '**/pnpm-lock.yaml',
      '**/bun.lock',
      '**/bun.lockb',
      '**/deno.lock',
      '**/Cargo.lock',
      '**/poetry.lock',
      '**/Pipfile.lock',
      '**/uv.lock',
      '**/pdm.lock',
      '**/Gemfile.lock',
      '**/composer.lock',
      '**/go.sum',
      '**/packages.lock.json',
      '**/flake.lock'
    ]
  },
  {
    name: 'build-config',
    why: 'these files run code when validation lints, tests or builds',
    globs: [
      '**/eslint.config.*',
      '**/.eslintrc*',
      '**/vitest.config.*',
      '**/vitest.workspace.*',
      '**/jest.config.*',
      '**/babel.config.*',
      '**/.babelrc*',
      '**/webpack.config.*',
      '**/vite.config.*',
      '**/rollup.config.*',
      '**/prettier.config.*',
      '**/.prettierrc.{js,cjs,mjs,ts}',
      '**/Makefile',
      '**/GNUmakefile',
      '**/Dockerfile*',
      '**/setup.py',
      '**/conftest.py'
    ]
  },
  {
    name: 'agent-tools',
    why: 'agent tool and editor run configs start programs when a developer or an agent opens the repository',
    globs: [
      '**/.claude/**',
      '**/.mcp.json',
      '**/.vscode/mcp.json',
      '**/.vscode/tasks.json',
      '**/.vscode/launch.json',
      '**/.vscode/settings.json',
      '**/.devcontainer/**',
      '**/.devcontainer.json',
      '**/.cursor/**'
    ]
  },
  {
    name: 'agent-instructions',
    why: 'future agents and the seed code-commit trust these files and folders',
    globs: [
      '**/AGENTS.md',
      '**/CLAUDE.md',
      '**/GEMINI.md',
      '**/.cursorrules',
      '**/.windsurfrules',
      '**/.clinerules*',
      '**/SECURITY.md',
      '**/build.sh',
      '**/codeRollup.sh',
      '**/LLMInstructions.md',
      '**/UserSpecification.md',
      '**/agent-config/**'
    ]
  }
]

/** Manifests whose execution-relevant fields are protected; their other fields may change. */
export const MANIFEST_GLOB = '**/package.json'
export const MANIFEST_PROTECTED_FIELDS = [
  'scripts',
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'bundleDependencies',
  'bundledDependencies',
  'overrides',
  'resolutions',
  'pnpm',
  'workspaces',
  'bin',
  'config',
  'packageManager',
  // hook managers configured inside the manifest run on the next commit or install
  'husky',
  'simple-git-hooks',
  'lint-staged',
  'pre-commit',
  'gitHooks',
  'ghooks'
] as const
