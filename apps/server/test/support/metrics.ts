/** One series' value as the metrics port shows it now (0 when it has not been counted yet). */
export async function metric(metricsUrl: string, series: string): Promise<number> {
  const res = await fetch(`${metricsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
