/**
 * The User-Agent of every webhook delivery. Tracing also tells a delivery by it: the attempt is already
 * its own span, so the HTTP client instrumentation leaves it alone. No imports: tracing reads it before
 * the rest of the service is loaded.
 */
export const WEBHOOK_USER_AGENT = "dhs-webhooks/1";
