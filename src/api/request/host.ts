import { isIPv6 } from 'node:net'

/** IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) (RFC 3986 §3.2.2). */
const IP_FUTURE = /^v[0-9A-Fa-f]+\.[\w.~!$&'()*+,;=:-]+$/
/** reg-name = *( unreserved / pct-encoded / sub-delims ); IPv4address is one of these. */
const REG_NAME = /^(?:[\w.~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*$/
const PORT = /^[0-9]*$/

/** Hosts already found valid: most clients send one Host again and again. */
const knownHosts = new Set<string>()
const KNOWN_HOSTS_MAX = 256

/** host [ ":" port ] by RFC 3986's grammar (§3.2.2, §3.2.3). */
function matchesGrammar(value: string): boolean {
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    if (end === -1) return false
    const literal = value.slice(1, end)
    const rest = value.slice(end + 1)
    // Node's isIPv6 also takes a zone ("fe80::1%eth0"), which RFC 3986 has no room for.
    const address = (isIPv6(literal) && !literal.includes('%')) || IP_FUTURE.test(literal)
    return address && (rest === '' || (rest.startsWith(':') && PORT.test(rest.slice(1))))
  }
  const colon = value.indexOf(':')
  const name = colon === -1 ? value : value.slice(0, colon)
  return REG_NAME.test(name) && (colon === -1 || PORT.test(value.slice(colon + 1)))
}

/**
 * Whether a Host (or a trusted X-Forwarded-Host) names an authority: RFC 3986's host and
 * port grammar, and one from which an absolute URL can be written that every WHATWG URL
 * parser (browsers, Node, generated clients) reads back, because the service writes it
 * into `Location`. So an IPvFuture literal, a port over 65535, a name ending in a number
 * that is no IPv4 address (`1.2.3.999`) or escapes that decode to a forbidden character
 * are refused, though the grammar alone allows them.
 */
export function isValidHost(value: string): boolean {
  if (knownHosts.has(value)) return true
  const valid = matchesGrammar(value) && URL.canParse(`http://${value}/`)
  if (valid && knownHosts.size < KNOWN_HOSTS_MAX) knownHosts.add(value)
  return valid
}
