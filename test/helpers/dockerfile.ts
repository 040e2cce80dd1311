import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './process.js'

/**
 * What the Dockerfile at the root says about the image it builds, read from its text:
 * the final stage's user, port, data volume, entry point, environment, labels and health
 * check.
 * kubernetes.test.ts holds deploy/kubernetes.yaml to it, container.test.ts the built image.
 */
export interface ImageFacts {
  /** USER, as written (`uid:gid`). */
  readonly user: string
  readonly uid: number
  readonly gid: number
  readonly workdir: string
  /** EXPOSE: the port the service listens on unless PORT says otherwise. */
  readonly port: number
  readonly volumes: readonly string[]
  readonly entrypoint: readonly string[]
  /** ENV: the variables the image sets for its process. */
  readonly environment: Readonly<Record<string, string>>
  readonly labels: Readonly<Record<string, string>>
  /** The path the HEALTHCHECK command asks, e.g. /health/live. */
  readonly healthPath: string
}

const DOCKERFILE = join(ROOT, 'Dockerfile')

/** package.json's version: the tag and version label CI builds the image with. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version

interface Instruction {
  readonly keyword: string
  readonly args: string
}

/** The instructions, continuation lines joined and comments dropped. */
function instructionsOf(text: string): Instruction[] {
  const logical: string[] = []
  let current = ''
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('#')) continue
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `
      continue
    }
    current += line
    if (current.trim() !== '') logical.push(current.trim())
    current = ''
  }
  return logical.map((line) => {
    const space = line.search(/\s/)
    return { keyword: line.slice(0, space).toUpperCase(), args: line.slice(space).trim() }
  })
}

/** `key="value" key=value …` of a LABEL or ENV instruction. */
function assignmentsOf(args: string): Record<string, string> {
  const assignments: Record<string, string> = {}
  for (const match of args.matchAll(/([\w.-]+)=(?:"([^"]*)"|(\S+))/g)) {
    assignments[match[1] as string] = match[2] ?? match[3] ?? ''
  }
  return assignments
}

/** The assignments of every `keyword` instruction of `instructions`, later ones winning. */
function allAssignments(instructions: Instruction[], keyword: string): Record<string, string> {
  return Object.assign(
    {},
    ...instructions
      .filter((found) => found.keyword === keyword)
      .map(({ args }) => assignmentsOf(args)),
  )
}

function single(instructions: Instruction[], keyword: string): string {
  const found = instructions.filter((instruction) => instruction.keyword === keyword)
  if (found.length !== 1) throw new Error(`the final stage has ${found.length} ${keyword}, not 1`)
  return (found[0] as Instruction).args
}

function imageFactsOf(text: string): ImageFacts {
  const instructions = instructionsOf(text)
  const lastFrom = instructions.map(({ keyword }) => keyword).lastIndexOf('FROM')
  const final = instructions.slice(lastFrom)
  const user = single(final, 'USER')
  const [uid, gid] = user.split(':').map(Number)
  const healthPath = /\/health\/\w+/.exec(single(final, 'HEALTHCHECK'))?.[0]
  if (uid === undefined || gid === undefined || Number.isNaN(uid) || Number.isNaN(gid))
    throw new Error(`USER ${user}: not uid:gid numbers`)
  if (healthPath === undefined) throw new Error('the HEALTHCHECK asks no /health path')
  return {
    user,
    uid,
    gid,
    workdir: single(final, 'WORKDIR'),
    port: Number(single(final, 'EXPOSE')),
    volumes: JSON.parse(single(final, 'VOLUME')) as string[],
    entrypoint: JSON.parse(single(final, 'ENTRYPOINT')) as string[],
    environment: allAssignments(final, 'ENV'),
    labels: allAssignments(final, 'LABEL'),
    healthPath,
  }
}

/** The facts of the repository's Dockerfile. */
export function imageFacts(): ImageFacts {
  return imageFactsOf(readFileSync(DOCKERFILE, 'utf8'))
}
