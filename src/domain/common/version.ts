/**
 * What a client says it expects of a resource's version before a write
 * (HTTP's If-Match, translated by the api layer). Absent means "no expectation".
 */
export interface VersionCondition {
  matches(version: number): boolean
}
