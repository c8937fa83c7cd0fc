/**
 * The container's HEALTHCHECK: exit 0 when this process answers GET /healthz on PORT, 1 otherwise.
 * Liveness, not readiness: a Redis or LiveKit outage must not get a healthy process restarted, since it
 * answers 503 meanwhile and recovers by itself (/readyz is for load balancers). The image has no curl;
 * Node is there anyway.
 */
const port = Number(process.env.PORT ?? 8080) || 8080;

try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
