import { describe, expect, it } from 'vitest';
import { createAttemptLabels, createRowLabels } from '../../server/metrics/row-labels.js';
import { usageRow } from '../helpers/stores.js';

const known = { hasModel: (id: string) => id === 'acme/m1', hasProvider: (provider: string) => provider === 'acme' };

describe('the label sets of a usage row', () => {
  it('names a served target and the row kind, bounded as the labels are', () => {
    const labelsOf = createRowLabels(known);
    const ok = labelsOf(usageRow('app', 'r1'));
    expect(ok.requests).toEqual({ gen_ai_operation_name: 'chat', gen_ai_provider_name: 'acme', gen_ai_request_model: 'm1', operation: 'chat.completions', status: 'ok', error_type: '' });
    expect(ok.input).toMatchObject({ gen_ai_token_type: 'input', gen_ai_request_model: 'm1' });
    expect(ok.duration).toMatchObject({ error_type: '' });
    const refused = labelsOf(usageRow('app', 'r2', { model: 'whatever-the-body-said', status: 'refused', errorCode: 'Not A Code!' }));
    expect(refused.requests).toMatchObject({ gen_ai_provider_name: 'acme', gen_ai_request_model: 'unknown', status: 'refused', error_type: 'other' });
    expect(labelsOf(usageRow('app', 'r3', { status: 'error', errorCode: 'upstream_timeout' })).duration).toMatchObject({ error_type: 'upstream_timeout' });
  });

  it('gives every row of one kind the same objects, and stays correct past the kinds it remembers', () => {
    const labelsOf = createRowLabels(known);
    expect(labelsOf(usageRow('app', 'a'))).toBe(labelsOf(usageRow('app', 'b')));
    // Two thousand models a body named: the kinds remembered stop growing, the labels stay right.
    for (let i = 0; i < 2000; i++) labelsOf(usageRow('app', `x${i}`, { model: `m-${i}`, status: 'refused' }));
    const late = labelsOf(usageRow('app', 'late', { model: 'm-late', status: 'refused' }));
    expect(late.requests).toMatchObject({ gen_ai_request_model: 'unknown', status: 'refused' });
    expect(labelsOf(usageRow('app', 'c'))).toBe(labelsOf(usageRow('app', 'd')));
  });

  it("gives an attempt its target's labels, its outcome's, and the same objects to every attempt of one kind", () => {
    const labelsOf = createAttemptLabels(known);
    const ok = labelsOf({ route: null, provider: 'acme', model: 'm1', outcome: 'ok' });
    expect(ok).toEqual({
      target: { route: '', gen_ai_provider_name: 'acme', gen_ai_request_model: 'm1' },
      attempts: { route: '', gen_ai_provider_name: 'acme', gen_ai_request_model: 'm1', outcome: 'ok' },
      failed: null,
      seen: 'acme/m1',
    });
    expect(labelsOf({ route: null, provider: 'acme', model: 'm1', outcome: 'ok' })).toBe(ok);
    const failed = labelsOf({ route: 'fast', provider: 'other', model: 'x', outcome: 'Not A Code!' });
    expect(failed.attempts).toEqual({ route: 'fast', gen_ai_provider_name: 'unknown', gen_ai_request_model: 'unknown', outcome: 'other' });
    expect(failed.failed).toEqual({ route: 'fast', gen_ai_provider_name: 'unknown', gen_ai_request_model: 'unknown', error_class: 'other' });
    expect(failed.seen).toBe('unknown/unknown');
  });
});
