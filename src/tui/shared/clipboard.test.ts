import { expect, it } from 'vitest';
import { osc52 } from './clipboard.js';

it('wraps the text, as UTF-8 in base64, in an OSC 52 clipboard sequence', () => {
  expect(osc52('svc_test_é')).toBe(`\u001b]52;c;${Buffer.from('svc_test_é').toString('base64')}\u0007`);
  expect(osc52('')).toBe('\u001b]52;c;\u0007');
});
