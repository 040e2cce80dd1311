import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { RESOURCES } from '../src/resources/index.js'

/**
 * The shape of the source tree that docs/architecture.md promises, checked on every run:
 * layers point one way, no two folders import each other, files stay small, and the
 * private internals of other packages are touched nowhere but in one adapter each.
 */

const SRC = resolve('src')
const MAX_SOURCE_LINES = 300
const MAX_TEST_LINES = 600

function filesUnder(folder: string, extension: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(extension) && !name.endsWith('.d.ts'))
    .map((name) => join(folder, name))
}

const sources = filesUnder(SRC, '.ts')

/**
 * The layer of a folder: its first segment in the shared rooms (`api/errors` is `api`),
 * its third inside a resource (`resources/todo/domain` is `domain`).
 */
function layerOf(folder: string): string | undefined {
  const segments = folder.split('/')
  return segments[0] === 'resources' ? segments[2] : segments[0]
}

/** The folder of a source file, relative to src/ ('.' for src/ itself). */
const folderOf = (file: string) => relative(SRC, dirname(file)) || '.'

/** Every relative import of a file, as the imported file's path. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'))
}

/** Folder -> the folders its files import. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const file of sources) {
    const from = folderOf(file)
    const targets = graph.get(from) ?? new Set<string>()
    for (const imported of importsOf(file)) {
      const to = folderOf(imported)
      if (to !== from) targets.add(to)
    }
    graph.set(from, targets)
  }
  return graph
}

/** Every cycle between folders, as the folders of each strongly connected group. */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>()
    const stack = [from]
    while (stack.length > 0) {
      const folder = stack.pop() as string
      for (const next of graph.get(folder) ?? []) {
        if (next === to) return true
        if (!seen.has(next)) {
          seen.add(next)
          stack.push(next)
        }
      }
    }
    return false
  }
  const groups = new Map<string, string[]>()
  for (const folder of graph.keys()) {
    const group = [...graph.keys()].filter(
      (other) => other === folder || (reaches(folder, other) && reaches(other, folder)),
    )
    if (group.length > 1) groups.set(group.sort().join(' '), group)
  }
  return [...groups.values()]
}

describe('the source tree', () => {
  const graph = folderGraph()

  it('has no cycle between folders', () => {
    expect(folderCycles(graph)).toEqual([])
  })

  it('has no arrow from domain/ or infra/ up to api/, nor from domain/ down to infra/, in the shared rooms and in every resource', () => {
    const upward = [...graph].flatMap(([from, targets]) =>
      [...targets]
        .filter((to) => {
          const [source, target] = [layerOf(from), layerOf(to)]
          return (
            ((source === 'domain' || source === 'infra') && target === 'api') ||
            (source === 'domain' && target === 'infra')
          )
        })
        .map((to) => `${from} -> ${to}`),
    )
    expect(upward).toEqual([])
  })

  it('has no arrow from the shared rooms to a resource, nor from one resource to another', () => {
    const resourceOf = (folder: string) => /^resources\/([^/]+)/.exec(folder)?.[1]
    const wrong = [...graph].flatMap(([from, targets]) =>
      [...targets]
        .filter((to) => {
          const [source, target] = [resourceOf(from), resourceOf(to)]
          if (target === undefined) return false
          // The composition: the application, the list of resources and the commands.
          if (from === '.' || from === 'resources') return false
          return source !== target
        })
        .map((to) => `${from} -> ${to}`),
    )
    expect(wrong).toEqual([])
  })

  it('keeps the test generators (src/testing/, a resource testing/) out of the service', () => {
    const isTesting = (folder: string) => folder === 'testing' || layerOf(folder) === 'testing'
    const wrong = [...graph].flatMap(([from, targets]) =>
      [...targets]
        .filter((to) => isTesting(to) && !isTesting(from))
        .map((to) => `${from} -> ${to}`),
    )
    expect(wrong).toEqual([])
  })

  it('lists every folder of src/resources/ in RESOURCES, under its own name', () => {
    const folders = readdirSync(join(SRC, 'resources'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(RESOURCES.map((resource) => resource.name).sort()).toEqual(folders.sort())
  })

  it(`keeps every source file within ${MAX_SOURCE_LINES} lines`, () => {
    const long = sources
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_SOURCE_LINES)
    expect(long).toEqual([])
  })

  it(`keeps every test file within ${MAX_TEST_LINES} lines`, () => {
    const long = filesUnder(resolve('test'), '.ts')
      .map((file) => [relative('.', file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_TEST_LINES)
    expect(long).toEqual([])
  })

  it("reaches into no package's private fields and forces no type through unknown", () => {
    const offences = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ line, where: `${relative(SRC, file)}:${index + 1}` }))
        .filter(({ line }) => / as unknown as |\.\s*_[a-zA-Z]\w*\b/.test(line))
        .map(({ where, line }) => `${where}: ${line.trim()}`),
    )
    expect(offences).toEqual([])
  })
})
