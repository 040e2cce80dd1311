import type { FetchImplementation } from 'jose'

/** A key-set fetch refused because the last one ended less than a cooldown ago. */
export class KeySetFetchCoolingDown extends Error {
  override readonly name = 'KeySetFetchCoolingDown'
  readonly code = 'ERR_JWKS_FETCH_COOLING_DOWN'
}

/**
 * The fetch behind jose's remote key set, starting at most one request per cooldown,
 * counted from the end of the one before, whatever it answered: jose waits its own
 * cooldown only after a fetch that succeeded, so while the provider fails (an error
 * status, a body that is not a key set, a refused connection, no answer until the
 * timeout) every token needing the key set would fetch it again. jose shares the one
 * fetch in flight between the requests that wait for it.
 */
export function fetchAtMostOncePer(
  cooldownMs: number,
  fetchKeySet: FetchImplementation = fetch,
): FetchImplementation {
  let inFlight = false
  let lastEndedAt = Number.NEGATIVE_INFINITY
  return async (url, options) => {
    if (inFlight || Date.now() < lastEndedAt + cooldownMs) {
      throw new KeySetFetchCoolingDown(
        `The key set was fetched less than ${cooldownMs} ms ago; the next fetch waits for that`,
      )
    }
    inFlight = true
    try {
      return await fetchKeySet(url, options)
    } finally {
      inFlight = false
      lastEndedAt = Date.now()
    }
  }
}
