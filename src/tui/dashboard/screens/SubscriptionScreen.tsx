import { Box, Text } from 'ink';
import type { Plan, Subscription } from '../api.js';
import { Loadable } from '../components/Loadable.js';
import { scrollOffset } from '../components/Table.js';
import { count, day, usd } from '../format.js';
import type { ScreenProps } from '../session.js';
import { planChange, planName } from './plan-change.js';
import { useSubscriptionScreen } from './subscription.js';

const CARD_MIN_WIDTH = 18;
/** Border, tier, price, credits and what Enter does; then the features. */
const CARD_FIXED_ROWS = 6;

function StatusLines({ status }: { status: Subscription }) {
  if (status.status === 'none' || status.tier === null) {
    return <Text wrap="truncate-end">No subscription. Pick a plan below and press Enter to subscribe.</Text>;
  }
  const period =
    status.current_period_start && status.current_period_end ? ` · ${day(status.current_period_start)} → ${day(status.current_period_end)}` : '';
  const downgrade = status.scheduled_downgrade;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{planName({ tier: status.tier, interval: status.interval ?? 'month' })}</Text> ·{' '}
        <Text color={status.status === 'active' ? 'green' : 'red'}>{status.status}</Text>
        {period}
      </Text>
      {status.status === 'canceled' ? <Text color="yellow" wrap="truncate-end">Ended. n renews it.</Text> : null}
      {status.status === 'active' && status.cancel_at_period_end ? (
        <Text color="yellow" wrap="truncate-end">
          Cancelled: ends on {status.current_period_end ? day(status.current_period_end) : 'the period end'}. n renews it.
        </Text>
      ) : null}
      {downgrade ? (
        <Text color="yellow" wrap="truncate-end">
          Scheduled: {planName(downgrade)} from {day(downgrade.effective_at)}. u withdraws it.
        </Text>
      ) : null}
    </Box>
  );
}

/** What Enter on a card would do, said on the card. */
const TAGS = { current: 'your plan', checkout: 'subscribe', upgrade: 'upgrade now', downgrade: 'downgrade' } as const;

function PlanCard({ plan, status, selected, width, features }: { plan: Plan; status: Subscription; selected: boolean; width: number; features: number }) {
  const change = planChange(status, plan);
  const scheduled = status.scheduled_downgrade?.tier === plan.tier && status.scheduled_downgrade.interval === plan.interval;
  return (
    <Box flexDirection="column" width={width} borderStyle={selected ? 'double' : 'round'} borderColor={selected ? 'cyan' : 'gray'} paddingX={1}>
      <Text bold wrap="truncate-end" color={change === 'current' ? 'green' : undefined}>
        {plan.tier[0]?.toUpperCase()}
        {plan.tier.slice(1)}
      </Text>
      <Text wrap="truncate-end">
        {usd(plan.price_usd)}/{plan.interval}
      </Text>
      <Text wrap="truncate-end">{count(plan.monthly_credits)} cr/month</Text>
      <Text wrap="truncate-end" color={change === 'current' ? 'green' : scheduled ? 'yellow' : 'gray'}>
        {scheduled ? 'scheduled' : TAGS[change]}
      </Text>
      {/* Features wrap inside the card (four cards share 80 columns) and stop where the rows do. */}
      <Box flexDirection="column" height={features} overflow="hidden">
        {plan.features.map((feature) => (
          <Text key={feature} dimColor wrap="wrap">
            · {feature}
          </Text>
        ))}
      </Box>
    </Box>
  );
}

export function SubscriptionScreen({ session, width, height }: ScreenProps) {
  const screen = useSubscriptionScreen(session);
  session.registerKeys('subscription', screen.handle, screen.selected);
  const fit = Math.max(1, Math.floor(width / CARD_MIN_WIDTH));
  const shown = Math.min(screen.plans.length, fit);
  const offset = scrollOffset(screen.cursor.index, screen.plans.length, shown);
  const cardWidth = shown > 0 ? Math.floor(width / shown) : width;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Subscription <Text dimColor>· ← → pick a plan, Enter changes to it</Text>
      </Text>
      <Loadable resource={screen.resource} what="the subscription">
        {(data) => {
          // What is left under the status lines is the cards' height.
          const statusRows = 1 + (data.status.cancel_at_period_end || data.status.status === 'canceled' ? 1 : 0) + (data.status.scheduled_downgrade ? 1 : 0);
          const features = Math.max(0, height - 2 - statusRows - CARD_FIXED_ROWS - 1);
          return (
            <Box flexDirection="column">
              <StatusLines status={data.status} />
              {screen.plans.length === 0 ? (
                <Text dimColor>This server offers no plans.</Text>
              ) : (
                <Box marginTop={1}>
                  {screen.plans.slice(offset, offset + shown).map((plan, index) => (
                    <PlanCard
                      key={plan.price_id}
                      plan={plan}
                      status={data.status}
                      selected={offset + index === screen.cursor.index}
                      width={cardWidth}
                      features={features}
                    />
                  ))}
                </Box>
              )}
              {shown < screen.plans.length ? (
                <Text dimColor>
                  plans {offset + 1}–{offset + shown} of {screen.plans.length}
                </Text>
              ) : null}
            </Box>
          );
        }}
      </Loadable>
    </Box>
  );
}
