/**
 * Whether the upstream answers a relay passes on are also checked in full against their schemas.
 * A relay reads only what metering needs and passes the rest on as the upstream wrote it (the
 * checks cost more than the rest of the relay); under test (vitest sets VITEST), or with
 * SVC_CHECK_UPSTREAM_ANSWERS=1, every answer is checked, so an upstream, or a fake of one, that
 * drifts from the shapes the gateway relies on is a 502 there.
 */
export const checkRelayedAnswers = process.env.VITEST === 'true' || process.env.SVC_CHECK_UPSTREAM_ANSWERS === '1';
