import { describe, expect, it } from 'vitest';
import { planChange, planName } from './plan-change.js';
import { active, NO_SUBSCRIPTION, plan } from '../../../../test/helpers/subscription-fixtures.js';

describe('planChange', () => {
  it('is a checkout without an active subscription', () => {
    expect(planChange(NO_SUBSCRIPTION, plan('pro', 'month'))).toBe('checkout');
    expect(planChange(active('starter', 'month', { status: 'canceled' }), plan('starter', 'month'))).toBe('checkout');
  });

  it('is an upgrade to a higher tier, or to yearly within the tier', () => {
    expect(planChange(active('starter', 'month'), plan('pro', 'month'))).toBe('upgrade');
    expect(planChange(active('starter', 'month'), plan('starter', 'year'))).toBe('upgrade');
  });

  it('is a downgrade to a lower tier, or to monthly within the tier', () => {
    expect(planChange(active('pro', 'month'), plan('starter', 'year'))).toBe('downgrade');
    expect(planChange(active('starter', 'year'), plan('starter', 'month'))).toBe('downgrade');
  });

  it('is nothing for the plan already held', () => {
    expect(planChange(active('starter', 'month'), plan('starter', 'month'))).toBe('current');
  });
});

describe('planName', () => {
  it('names a plan for people', () => {
    expect(planName(plan('pro', 'year'))).toBe('Pro · yearly');
  });
});
