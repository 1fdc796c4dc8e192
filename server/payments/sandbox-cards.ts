import { invalidRequest } from '../errors.js';
import { paymentDeclined } from './processors.js';

/**
 * The sandbox processor's test cards: Stripe's numbers with Stripe's behaviour, so a developer (or
 * a test) can make a payment fail. A sandbox customer pays with the first card until its customer
 * portal gives it another one.
 */
const CARDS = {
  '4242424242424242': { outcome: 'pays', says: 'pays' },
  // Stripe's "charge customer fail" card: it attaches, then no charge to it goes through.
  '4000000000000341': { outcome: 'declines_charges', says: 'attaches; every later charge to it is declined' },
  '4000000000000002': { outcome: 'declined', says: 'declined at once' },
} as const;

export type SandboxCard = keyof typeof CARDS;

const isCard = (number: string): number is SandboxCard => Object.hasOwn(CARDS, number);
/** 4000000000000341 → 4000 0000 0000 0341, as printed on a card. */
export const spaced = (number: string) => number.replace(/(\d{4})(?=\d)/g, '$1 ');

/** The test cards and what each does, for the sandbox's pages. */
export const sandboxCards = () => Object.entries(CARDS).map(([number, card]) => ({ number: spaced(number), says: card.says }));

/** The card a customer gives (spaces and dashes allowed), once it is accepted as the customer's. */
export function acceptCard(input: string): SandboxCard {
  const number = input.replace(/[\s-]/g, '');
  if (!isCard(number)) {
    throw invalidRequest(`The sandbox takes only its test cards: ${Object.keys(CARDS).map(spaced).join(', ')}.`, 'card', 'invalid_card');
  }
  if (CARDS[number].outcome === 'declined') throw paymentDeclined(`Your card was declined (sandbox test card ${spaced(number)}).`);
  return number;
}

/** Whether charges to a customer's card are declined (null: the customer has none of its own, and pays). */
export const declinesCharges = (card: string | null): card is SandboxCard =>
  card !== null && isCard(card) && CARDS[card].outcome === 'declines_charges';

export const chargeDeclined = (card: SandboxCard) =>
  paymentDeclined(`Your card was declined (sandbox test card ${spaced(card)}); nothing was charged and nothing changed.`);
