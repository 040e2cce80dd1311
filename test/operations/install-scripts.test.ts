import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/**
 * npm 12 runs a dependency's install scripts only when package.json's allowScripts
 * allows them; an unlisted native driver would install without its binary and fail at
 * start. Every package the lockfile marks as having one is decided, by name.
 */

interface LockedPackage {
  readonly name?: string
  readonly hasInstallScript?: boolean
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  allowScripts: Record<string, boolean>
}
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, LockedPackage>
}

/** A locked package's own name: aliases (better-sqlite3-napi) carry it in `name`. */
function nameOf(path: string, locked: LockedPackage): string {
  return locked.name ?? path.replace(/^.*node_modules\//, '')
}

describe('install scripts', () => {
  it('allows or denies, in package.json, every dependency that has one', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, locked]) => path !== '' && locked.hasInstallScript === true)
      .map(([path, locked]) => nameOf(path, locked))
    expect(withScripts.length).toBeGreaterThan(0)
    expect(withScripts.filter((name) => !(name in manifest.allowScripts))).toEqual([])
  })

  it("allows the native drivers' builds and esbuild's binary, and denies usage reports", () => {
    expect(manifest.allowScripts).toMatchObject({
      'better-sqlite3': true,
      esbuild: true,
      '@scarf/scarf': false,
    })
  })
})
