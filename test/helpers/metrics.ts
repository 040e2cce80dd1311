/** Reading the Prometheus text exposition that /metrics answers. */

/** The sample lines of one metric, e.g. `http_requests_total{...} 3`. */
export function samples(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
}

/** The value of a metric without labels; undefined when the exposition lacks it. */
export function unlabelledValue(text: string, name: string): number | undefined {
  const line = samples(text, name).find((sample) => sample.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

/** The value of a metric's sample with exactly these labels, in any order; undefined when absent. */
export function labelledValue(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): number | undefined {
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .sort()
    .join(',')
  for (const line of samples(text, name)) {
    const match = /^[^{]+\{([^}]*)\} (\S+)$/.exec(line)
    if (match && (match[1] ?? '').split(',').sort().join(',') === wanted) return Number(match[2])
  }
  return undefined
}
