/**
 * The dashboard's screens, in tab order. Plain data (no Ink), so `svc dashboard <screen>` can
 * check its argument without loading the screens.
 */
export const SCREENS = [
  { id: 'apps', title: 'Apps' },
  { id: 'keys', title: 'Keys' },
  { id: 'users', title: 'Users' },
  { id: 'usage', title: 'Usage' },
  { id: 'credits', title: 'Credits' },
  { id: 'subscription', title: 'Subscription' },
  { id: 'billing', title: 'Billing' },
  { id: 'providers', title: 'Providers' },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

export const SCREEN_IDS: readonly ScreenId[] = SCREENS.map((screen) => screen.id);

export function isScreenId(value: string): value is ScreenId {
  return (SCREEN_IDS as readonly string[]).includes(value);
}

/** The screens that show one app: they need an app to be selected. */
export const APP_SCREENS: readonly ScreenId[] = ['keys', 'users', 'usage'];

/** `:` jumps: the first screen whose id starts with what was typed (any case); none for nothing typed. */
export function screenNamed(typed: string): ScreenId | null {
  const prefix = typed.trim().toLowerCase();
  if (prefix === '') return null;
  return SCREEN_IDS.find((id) => id.startsWith(prefix)) ?? null;
}
