/** The words of a row a filter looks at: its text and number fields, one level deep. */
function textOf(item: object): string {
  return Object.values(item)
    .filter((value) => typeof value === 'string' || typeof value === 'number')
    .join(' ')
    .toLowerCase();
}

/** The items whose fields contain every word of `filter`, in order; all of them for no filter. */
export function filterRows<T extends object>(items: readonly T[], filter: string | undefined): T[] {
  const words = (filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...items];
  return items.filter((item) => {
    const text = textOf(item);
    return words.every((word) => text.includes(word));
  });
}
