/** The command's words from a clipanion definition path (`svc api apps list <app_uuid>` → api, apps, list). */
export function commandWords(usagePath: string): string[] {
  const words = usagePath.split(' ').slice(1);
  const end = words.findIndex((word) => !/^[a-z][a-z0-9-]*$/.test(word));
  return end === -1 ? words : words.slice(0, end);
}
