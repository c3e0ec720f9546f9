// Type-checks every TypeScript snippet in README.md and docs/*.md against the package's public entry points.
//
// Each ```ts block is compiled as a module of its own, in memory, with the project's compiler options; `weir` and
// its subpaths resolve through package.json's `exports` map to the sources behind them (dist/x.d.ts → src/x.ts),
// so a snippet sees exactly what a user's import sees, without a build. Errors are reported at the line of the
// Markdown file. A snippet that is deliberately incomplete is fenced as ```ts fragment and skipped; keep those
// rare. Run with `npm run check:docs`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/** One fenced ```ts block: where it stands in its Markdown file and its text. */
interface Snippet {
  readonly doc: string;
  /** The Markdown line (1-based) of the snippet's first line of code. */
  readonly line: number;
  readonly code: string;
  readonly virtualPath: string;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs];
}

function extractSnippets(files: readonly string[]): { snippets: Snippet[]; fragments: number } {
  const snippets: Snippet[] = [];
  let fragments = 0;
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const doc = relative(root, file);
    for (let i = 0; i < lines.length; i++) {
      const open = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[i]!);
      if (open === null) continue;
      const [, indent, lang, info] = open;
      let end = i + 1;
      while (end < lines.length && !lines[end]!.trimStart().startsWith('```')) end++;
      if (lang === 'ts' || lang === 'typescript') {
        if (info!.split(/\s+/).includes('fragment')) {
          fragments++;
        } else {
          const body = lines
            .slice(i + 1, end)
            .map((line) => line.slice(Math.min(indent!.length, leading(line))));
          snippets.push({
            doc,
            line: i + 2,
            code: body.join('\n') + '\n',
            // Beside the Markdown file, so the nearest package.json (type: module) makes the snippet an ES module.
            virtualPath: join(root, `${doc}.snippet-${snippets.length + 1}.ts`),
          });
        }
      }
      i = end;
    }
  }
  return { snippets, fragments };
}

function leading(line: string): number {
  return line.length - line.trimStart().length;
}

/** `weir` and its subpaths, from package.json's exports map, pointed at the sources the declarations come from. */
function packagePaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined) continue;
    const source = types.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts');
    paths[pkg.name + subpath.slice(1)] = [join(root, source)];
  }
  return paths;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error !== undefined)
    throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
  return { ...parsed.options, noEmit: true, declaration: false, sourceMap: false, paths: packagePaths() };
}

function check(snippets: readonly Snippet[]): string[] {
  const byPath = new Map(snippets.map((snippet) => [snippet.virtualPath, snippet]));
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => byPath.has(path) || fileExists.call(host, path);
  host.readFile = (path) => byPath.get(path)?.code ?? readFile.call(host, path);
  host.getSourceFile = (path, language, onError, shouldCreate) => {
    const snippet = byPath.get(path);
    if (snippet !== undefined) return ts.createSourceFile(path, snippet.code, language, true);
    return getSourceFile.call(host, path, language, onError, shouldCreate);
  };
  const program = ts.createProgram([...byPath.keys()], options, host);
  const problems: string[] = [];
  for (const diagnostic of program.getOptionsDiagnostics()) {
    problems.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }
  for (const snippet of snippets) {
    const file = program.getSourceFile(snippet.virtualPath)!;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    for (const diagnostic of diagnostics) {
      const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
      problems.push(
        `${snippet.doc}:${snippet.line + line}:${character + 1} TS${diagnostic.code}: ${message}`,
      );
    }
  }
  return problems;
}

const { snippets, fragments } = extractSnippets(markdownFiles());
const problems = check(snippets);
for (const problem of problems) console.error(problem);
const summary = `${snippets.length} snippets type-checked, ${fragments} fragments skipped`;
if (problems.length > 0) {
  console.error(`${problems.length} errors in documentation snippets (${summary})`);
  process.exit(1);
}
console.log(`docs ok: ${summary}`);
