/** One series' value in the text the metrics port served (0 when it has not been counted yet). */
export function seriesValue(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** One series' value as the metrics port shows it now. */
export async function metric(metricsUrl: string, series: string): Promise<number> {
  const res = await fetch(`${metricsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return seriesValue(await res.text(), series);
}
