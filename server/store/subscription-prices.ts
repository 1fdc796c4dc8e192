/**
 * Both stores' migration giving a subscription the processor's price id of its plan, and its
 * planned downgrade's: how a report of a price no longer configured here (its plan taken off sale)
 * is still known. Rows from before have none; each gets its own with the processor's next report.
 */
export const subscriptionPricesSql = `
  ALTER TABLE subscriptions ADD COLUMN price_id TEXT;
  ALTER TABLE subscriptions ADD COLUMN scheduled_price_id TEXT;
`;
