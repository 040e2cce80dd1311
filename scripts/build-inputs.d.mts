/** The types of build-inputs.mjs, which runs under plain Node (scripts/start.mjs). */
export interface Build {
  readonly output: string
  readonly inputs: readonly string[]
}
export declare const SERVER_BUILD: Build
export declare const WEB_BUILD: Build
export declare function isStale(root: string, build: Build): boolean
