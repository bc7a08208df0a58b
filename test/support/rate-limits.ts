/**
 * Every request rate limit off (core/rate-limit.ts): tests send far more requests a minute with one
 * key than PostHog's limits allow. test/rest/rate-limits.test.ts turns them on with its own rates.
 */
export const RATE_LIMITS_OFF = {
  RATE_LIMIT_BURST: "off",
  RATE_LIMIT_SUSTAINED: "off",
  RATE_LIMIT_LOCAL_EVALUATION: "off",
  RATE_LIMIT_REMOTE_CONFIG: "off",
  RATE_LIMIT_CAPTURE: "off",
  RATE_LIMIT_FLAGS: "off",
} as const;
