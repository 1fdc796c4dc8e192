import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Fair connections: no client may hold more than `maxPerClient` of the server's connections, so
 * one address opening thousands of slow sockets cannot take the slots every other client needs.
 *
 * A connection over the cap is closed at once, with nothing written: answering it would cost the
 * server the buffers and parser the cap is there to save, for a client that may never read.
 */
export function capConnectionsPerClient(server: Server, maxPerClient: number, log: (line: string) => void): void {
  const open = new Map<string, number>();
  // Clients already reported since they last had no connection: one line per flood, not per socket.
  const reported = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress);
    const held = open.get(client) ?? 0;
    if (held >= maxPerClient) {
      if (!reported.has(client)) {
        reported.add(client);
        log(`connections: ${client} holds ${held}, the most one client may (SVC_MAX_CONNECTIONS_PER_CLIENT); closing its new ones until some end`);
      }
      socket.destroy();
      return;
    }
    open.set(client, held + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) return void open.set(client, left);
      open.delete(client);
      reported.delete(client);
    });
  });
}

/**
 * Whom a connection counts against: its IPv4 address (also when written IPv4-mapped, as on a
 * dual-stack socket), or the /64 network of an IPv6 one — a single host is handed a whole /64,
 * so counting its addresses one by one would cap nobody.
 */
export function clientOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded and each written without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [withoutZone = ''] = address.toLowerCase().split('%');
  const [head = '', tail] = withoutZone.split('::');
  const groupsOf = (part: string) => part.split(':').filter((group) => group !== '');
  const before = groupsOf(head);
  const after = tail === undefined ? [] : groupsOf(tail);
  // A dotted IPv4 ending (64:ff9b::1.2.3.4) fills two groups.
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const missing = Math.max(0, 8 - width(before) - width(after));
  return [...before, ...Array<string>(missing).fill('0'), ...after].map((group) => (group.includes('.') ? group : group.replace(/^0+(?=.)/, '')));
}
