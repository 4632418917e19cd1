/**
 * Neon's API rate limits, as the service enforces them: the client paces itself by them and the
 * emulator refuses by them, so both read this one value.
 */
export const SERVICE_RATE_LIMIT = {
  /** Sustained requests per minute per account. */
  perMinute: 700,
  /** Requests at once per account (capacity of the account bucket). */
  burst: 40,
  /** Requests per second per route (capacity and refill of each route bucket). */
  routePerSecond: 40,
} as const;
