import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Every path of this repository that the manual (README.md, docs/) or a source comment
 * names exists, every relative link of the manual reaches its file from the page it is
 * on, and every link between the manual's pages reaches a heading that is there: a file
 * that moved cannot leave a reader looking for it.
 */

const ROOT = resolve('.')
/** The contract is given to us as it is; the project's own docs are checked. */
const SKIPPED_DOCS = new Set(['docs/contract'])
/** Folders whose files are made by a build or a run, not kept in the repository. */
const GENERATED = /^(?:\.\/)?(?:dist[\w-]*|data|node_modules|test-output|coverage|\.cache)\//
/** Files named that are not the repository's: a package's, the system's, a product. */
const ELSEWHERE = new Set(['swagger-ui-bundle.js', 'pg_hba.conf', 'Node.js'])
/**
 * A path-like token: folders and a file with a known extension, or a bare file name
 * (`catalogue.ts`). Not part of a URL, a package name (`@fastify/static`) or a longer word.
 */
const PATH =
  /(?<![\w@:/.-])((?:\.{1,2}\/)?(?:[\w.-]+\/)*\w[\w.-]*\.(?:ts|tsx|mts|mjs|js|md|json|yaml|yml|cfg|ini|sh|conf|css|html))(?![\w/-])/g
/** A markdown link to a page of the manual, with its anchor. */
const LINK = /\]\(((?!https?:)[^)#\s]*\.md)?(#[^)\s]*)?\)/g
/** A markdown link to any file of the repository, relative to the page. */
const FILE_LINK = /\]\(((?![a-z]+:)[^)#\s]+)(?:#[^)\s]*)?\)/g

function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => keep(name) && !name.split('/').includes('node_modules'))
    .map((name) => join(folder, name))
    .filter((file) => statSync(file).isFile())
}

const docs = [
  join(ROOT, 'README.md'),
  ...filesUnder(join(ROOT, 'docs'), (name) => name.endsWith('.md')).filter(
    (file) => ![...SKIPPED_DOCS].some((skipped) => relative(ROOT, file).startsWith(skipped)),
  ),
]
const sources = filesUnder(join(ROOT, 'src'), (name) => /\.tsx?$/.test(name))

/** Every file name of the repository, for a bare name (`catalogue.ts`) named in passing. */
const KNOWN_NAMES = new Set(
  ['src', 'test', 'bench', 'scripts', 'docs', 'deploy', 'web', 'clients', '.ci']
    .flatMap((folder) => filesUnder(join(ROOT, folder), () => true))
    .concat(readdirSync(ROOT).map((name) => join(ROOT, name)))
    .map((file) => basename(file)),
)

/** Where a path named in `file` may be read from: the repository, src/, test/, or a folder above. */
function exists(file: string, path: string): boolean {
  if (!path.includes('/')) return KNOWN_NAMES.has(path)
  const bases = [ROOT, join(ROOT, 'src'), join(ROOT, 'test')]
  for (let folder = dirname(file); folder.startsWith(ROOT); folder = dirname(folder)) {
    bases.push(folder)
    if (folder === ROOT) break
  }
  return bases.some((base) => existsSync(resolve(base, path)))
}

/** The text of a source file's comments: paths in strings are the code's business. */
function commentsOf(text: string): string {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/.*$/gm)].map(([comment]) => comment).join('\n')
}

/** A passage that names files a reader is to make (a new resource's), between markers. */
const TO_BE_MADE = /<!-- new-files[\s\S]*?<!-- \/new-files -->/g

function missingPaths(file: string, text: string): string[] {
  return [...text.replace(TO_BE_MADE, '').matchAll(PATH)]
    .map(([, path]) => path as string)
    .filter((path) => !GENERATED.test(path) && !ELSEWHERE.has(path) && !exists(file, path))
    .map((path) => `${relative(ROOT, file)}: ${path}`)
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
  const anchors = new Set<string>()
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const base = anchorOf(heading as string)
    let anchor = base
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

describe('the paths the manual and the comments name', () => {
  it('exist, for every path the README and docs/ name', () => {
    expect(docs.flatMap((file) => missingPaths(file, readFileSync(file, 'utf8')))).toEqual([])
  })

  it('exist, for every path a comment in src/ names', () => {
    expect(
      sources.flatMap((file) => missingPaths(file, commentsOf(readFileSync(file, 'utf8')))),
    ).toEqual([])
  })

  it('reach a file that is there, from the page itself, for every relative link', () => {
    const broken = docs.flatMap((file) =>
      [
        ...readFileSync(file, 'utf8')
          .replace(/```[\s\S]*?```/g, '')
          .matchAll(FILE_LINK),
      ]
        .filter(([, target]) => !existsSync(resolve(dirname(file), target as string)))
        .map(([link]) => `${relative(ROOT, file)}: ${link}`),
    )
    expect(broken).toEqual([])
  })

  it("reach a page and a heading that are there, for every link between the manual's pages", () => {
    const broken = docs.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(LINK)].flatMap(([link, page, anchor]) => {
        const target = page ? resolve(dirname(file), page) : file
        if (!existsSync(target)) return [`${relative(ROOT, file)}: ${link}`]
        if (anchor && !anchorsOf(target).has(decodeURIComponent(anchor.slice(1)))) {
          return [`${relative(ROOT, file)}: ${link}`]
        }
        return []
      }),
    )
    expect(broken).toEqual([])
  })
})
