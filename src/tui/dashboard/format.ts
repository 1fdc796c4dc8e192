/** How the dashboard writes numbers, money and times: short, and the same on every screen. */

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** Credits with at most two decimals: 1234.5 → "1,234.5"; a tiny non-zero amount stays visible. */
export function credits(value: number): string {
  if (value !== 0 && Math.abs(value) < 0.01) return value > 0 ? '<0.01' : '>-0.01';
  return grouped.format(value);
}

/** 1 credit = $0.01. */
export const usd = (value: number): string => `$${value.toFixed(2)}`;

export const count = (value: number): string => grouped.format(value);

/** "2026-03-01" from an RFC 3339 time. */
export const day = (iso: string): string => iso.slice(0, 10);

/** "2026-03-01 12:00 UTC". */
export const minute = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** Compact large numbers for chart axes: 1200 → "1.2k". */
export function compact(value: number): string {
  if (Math.abs(value) >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (Math.abs(value) >= 1e3) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

/** A number typed into a form, or null when the text is not one. */
export function parseNumber(text: string): number | null {
  const trimmed = text.trim().replaceAll(',', '');
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(trimmed)) return null;
  return Number(trimmed);
}
