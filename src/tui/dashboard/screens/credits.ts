import { useState } from 'react';
import type { Claim, Pack, Task } from '../api.js';
import { readNumber } from '../fields.js';
import { createForm } from '../form.js';
import { credits, minute, usd } from '../format.js';
import type { ScreenAction } from '../keys.js';
import { confirmModal, type LinkModal } from '../modal.js';
import type { DashboardSession } from '../session.js';
import { useCursor } from '../use-cursor.js';
import { dataOf, useResource } from '../use-resource.js';

/** One row of the Credits list: a task to claim or a pack to buy. */
export type CreditsRow = { kind: 'task'; task: Task } | { kind: 'pack'; pack: Pack };

/** Tasks counted in memories need the count from the caller (memories live client-side). */
const countsMemories = (task: Task) => task.requirement.startsWith('memories');

/**
 * The caller's credits (the account of the key in use): balance, the daily claim, tasks with
 * their rewards, packs to buy, and the points sync.
 */
export function useCreditsScreen(session: DashboardSession, visibleRows: number) {
  const { api } = session;
  const { resource, reload } = useResource(async () => {
    const [balance, tasks, packs] = await Promise.all([api.balance(), api.tasks(), api.packs()]);
    return { balance, tasks, packs };
  }, [api]);
  const [nextClaim, setNextClaim] = useState<string | null>(null);
  const data = dataOf(resource);
  const rows: CreditsRow[] = [
    ...(data?.tasks ?? []).map((task): CreditsRow => ({ kind: 'task', task })),
    ...(data?.packs ?? []).map((pack): CreditsRow => ({ kind: 'pack', pack })),
  ];
  const cursor = useCursor(rows.length, visibleRows);

  const claimed = async (what: string, claim: Promise<Claim>) => {
    const result = await claim;
    await reload();
    return `${what}: +${credits(result.granted_credits)} credits; the balance is ${credits(result.credits)}.`;
  };

  /** A claimed task says so; one counted in memories asks for the count first; others claim at once. */
  const claimTask = (task: Task) => {
    if (task.claimed) return session.flash('info', `“${task.title}” is already claimed.`);
    const what = `Claimed “${task.title}”`;
    if (!countsMemories(task)) return void session.act(`Claiming “${task.title}”…`, () => claimed(what, api.claimTask(task.type)));
    session.openModal({
      kind: 'form',
      title: `Claim “${task.title}”`,
      lines: [`Needs ${task.requirement}.`],
      form: createForm([{ name: 'memories', label: 'Memories saved', hint: 'how many memories you have saved' }]),
      submitLabel: 'claim',
      async submit(values) {
        session.flash('info', await claimed(what, api.claimTask(task.type, readNumber(values, 'memories', 'Memories saved'))));
      },
    });
  };

  const buy = (pack: Pack) =>
    confirmModal({
      title: `Buy ${credits(pack.credits)} credits for ${usd(pack.price_usd)}?`,
      lines: ['This opens a checkout session; you pay in the browser.'],
      confirmLabel: 'go to checkout',
      async run(): Promise<LinkModal> {
        const checkout = await api.purchase(pack.credits);
        return {
          kind: 'link',
          title: `Checkout for ${credits(pack.credits)} credits`,
          lines: ['Pay there; the credits arrive once the payment is confirmed.', 'This closes by itself when the payment lands.'],
          url: checkout.url,
          checkoutId: checkout.id,
          refresh: () => void reload(),
        };
      },
    });

  const handle = (action: ScreenAction<'credits'>) => {
    if (cursor.move(action)) return;
    if (action === 'refresh') return void reload();
    if (action === 'claimDaily') {
      return void session.act('Claiming the daily credits…', async () => {
        const result = await api.claimDaily();
        setNextClaim(result.next_claim_at);
        await reload();
        const next = result.next_claim_at ? ` Next claim from ${minute(result.next_claim_at)}.` : '';
        return `Claimed ${credits(result.granted_credits)} daily credits; the balance is ${credits(result.credits)}.${next}`;
      });
    }
    if (action === 'syncPoints') {
      return void session.act('Syncing points…', async () => {
        const result = await api.syncPoints();
        await reload();
        return `Converted ${result.converted_points} points into ${credits(result.granted_credits)} credits; the balance is ${credits(result.credits)}.`;
      });
    }
    const row = rows[cursor.current()];
    if (action !== 'select' || !row) return;
    if (row.kind === 'task') claimTask(row.task);
    else session.openModal(buy(row.pack));
  };

  /** `d`: the task or pack under the cursor, as the API gave it. */
  const selected = () => {
    const row = rows[cursor.current()];
    return row?.kind === 'task' ? row.task : row?.pack;
  };

  return { resource, rows, cursor, nextClaim, handle, selected };
}
