import { describe, expect, it } from 'vitest'
import { PathPolicy, PROTECTED_GROUPS } from '../../src/policy/index.js'

const policy = new PathPolicy()

/**
 * One case per class of the protected set (src/policy/protected-runners.ts,
 * protected-installers.ts, protected-structure.ts): paths of several ecosystems each, at the
 * root and deeper, in other letter cases. The content class (new programs) is in
 * protected-programs.test.ts.
 */
const CLASSES: Record<string, readonly string[]> = {
  'agent-instructions': [
    'AGENTS.md',
    'docs/CLAUDE.md',
    'GEMINI.md',
    '.cursorrules',
    '.windsurfrules',
    '.clinerules/rules.md',
    '.github/copilot-instructions.md',
    '.github/instructions/ts.instructions.md',
    'AGENTS.override.md',
    'WARP.md',
    'CONVENTIONS.md',
    'CRUSH.md',
    'skills/review/SKILL.md',
    '.agents/skills/review/SKILL.md'
  ],
  'agent-config': [
    '.gemini/settings.json',
    '.amazonq/mcp.json',
    'opencode.json',
    '.opencode/agent/x.md',
    '.zed/settings.json',
    '.continue/config.yaml',
    '.roo/mcp.json',
    '.kiro/settings/mcp.json',
    '.junie/guidelines.md',
    '.aider.conf.yml',
    '.cursor/mcp.json',
    '.windsurf/rules/x.md',
    '.claude/settings.json',
    '.mcp.json',
    '.vscode/extensions.json',
    '.idea/workspace.xml',
    '.codex/config.toml',
    '.agents/mcp.json',
    '.openhands/setup.sh',
    '.helix/languages.toml',
    '.dir-locals.el'
  ],
  ci: [
    '.github/workflows/ci.yml',
    '.gitlab-ci.yml',
    '.circleci/config.yml',
    '.travis.yml',
    'azure-pipelines.yml',
    'Jenkinsfile',
    'bitbucket-pipelines.yml',
    '.drone.yml',
    '.woodpecker.yml',
    '.woodpecker/build.yaml',
    'appveyor.yml',
    '.appveyor.yml',
    '.cirrus.yml',
    '.cirrus.star',
    'cloudbuild.yaml',
    'cloudbuild.json',
    '.buildkite/pipeline.yml',
    '.semaphore/semaphore.yml',
    '.teamcity/settings.kts',
    'codemagic.yaml',
    'bitrise.yml',
    'Earthfile',
    'Taskfile.yml',
    '.forgejo/workflows/x.yml',
    'dangerfile.ts',
    'Dangerfile'
  ],
  'git-metadata': ['.gitconfig', '.gitattributes', 'sub/.lfsconfig', '.gitmodules'],
  'hook-manager': ['.pre-commit-config.yaml', 'lefthook.yml', '.husky/pre-commit'],
  'build-wrapper': [
    'gradle/wrapper/gradle-wrapper.properties',
    'gradlew',
    'app/gradlew.bat',
    '.mvn/wrapper/maven-wrapper.properties',
    'mvnw',
    '.mvn/extensions.xml',
    '.mvn/jvm.config',
    'gradle/gradle-daemon-jvm.properties',
    'tools/bazel'
  ],
  'dependency-manifest': [
    'yarn.lock',
    'packages/a/pnpm-lock.yaml',
    'bun.lockb',
    'requirements.txt',
    'requirements-dev.txt',
    'Pipfile',
    'poetry.lock',
    'uv.lock',
    'pyproject.toml',
    'Gemfile',
    'Gemfile.lock',
    'composer.json',
    'composer.lock',
    'go.mod',
    'go.sum',
    'Cargo.toml',
    'crates/a/Cargo.lock',
    'mix.exs',
    'pubspec.yaml',
    'Package.swift',
    'Podfile',
    'global.json',
    'gradle/libs.versions.toml'
  ],
  'build-file': [
    'pom.xml',
    'module/pom.xml',
    'build.gradle',
    'build.gradle.kts',
    'settings.gradle.kts',
    'gradle.properties',
    'CMakeLists.txt',
    'cmake/FindFoo.cmake',
    'Directory.Build.props',
    'Directory.Build.targets',
    'src/App/App.csproj',
    'justfile',
    'Makefile',
    'build.rs',
    'meson.build',
    'BUILD.bazel',
    'Dockerfile',
    'hatch_build.py',
    'Makefile.toml',
    'project.json',
    'apps/web/project.json',
    'nx.json'
  ],
  'install-config': [
    'nuget.config',
    'NuGet.Config',
    'pip.conf',
    '.npmrc',
    '.yarnrc.yml',
    '.pnpmfile.cjs',
    'bunfig.toml',
    '.cargo/config.toml',
    '.cargo/config',
    '.bundle/config'
  ],
  'tool-config': [
    'playwright.config.ts',
    'postcss.config.js',
    'web/vite.config.mts',
    'tailwind.config.cjs',
    'packages/ui/vitest.config.ts',
    'jest.config.js',
    '.eslintrc.js',
    'babel.config.js',
    '.prettierrc.mjs',
    'webpack.config.ts',
    'rollup.config.mjs',
    '.pylintrc',
    'setup.cfg',
    'tox.ini',
    'pytest.ini',
    'tests/conftest.py',
    '.rubocop.yml',
    'phpunit.xml.dist'
  ],
  'environment-manager': [
    'mise.toml',
    '.mise.toml',
    '.tool-versions',
    'flake.nix',
    'shell.nix',
    'default.nix',
    'devbox.json',
    '.gitpod.yml',
    '.devcontainer/devcontainer.json',
    'rust-toolchain.toml',
    '.nvmrc',
    'Cross.toml'
  ],
  // Any file in a dot-folder at any depth, whatever tool it belongs to.
  'dot-folder': [
    '.newagent/config.json',
    '.changeset/config.json',
    'src/.internal/x.ts',
    'packages/a/.tool/hooks/run.sh',
    '.config/anything.toml'
  ]
  // .envrc (direnv) is under the blocked .env* pattern already, which no opt-in opens.
}

describe('the protected set, class by class', () => {
  it('has a case here for every class of the table', () => {
    expect(Object.keys(CLASSES).sort()).toEqual(PROTECTED_GROUPS.map((group) => group.name).sort())
  })

  it.each(Object.entries(CLASSES))('protects %s, with its reason in the refusal', (name, paths) => {
    const why = PROTECTED_GROUPS.find((group) => group.name === name)!.why
    for (const path of paths) {
      for (const shown of [path, path.toUpperCase()]) {
        const violation = policy.check(shown)
        expect(violation, shown).toMatchObject({ rule: 'protected-path', group: name })
        expect(violation!.reason, shown).toContain(why)
        expect(violation!.reason, shown).toContain('allow-protected-paths')
      }
      // allow-protected-paths opens exactly the path it names.
      const opened = new PathPolicy({ allowProtected: [path] })
      expect(opened.check(path), path).toBeUndefined()
    }
  })

  it.each([
    'src/config.ts',
    'src/app/config.ts',
    'config/index.js',
    'src/configure.ts',
    'src/build/index.ts',
    'src/makefile.ts',
    'src/gradle.ts',
    'lib/pom.ts',
    'src/requirements.py',
    'src/environment.ts',
    'tests/test_config.py',
    'src/settings.py',
    'docs/build.md',
    'docs/ci.md',
    'app/models/package.rb',
    'src/nix/parser.ts',
    'src/compose.ts',
    'README.md',
    'CHANGELOG.md',
    'src/main.rs',
    'src/lib.rs',
    'cmd/main.go',
    'src/App/Program.cs',
    'lib/app.rb',
    'src/index.php'
  ])('leaves the ordinary source file %j editable', (path) => {
    expect(policy.check(path)).toBeUndefined()
  })
})
