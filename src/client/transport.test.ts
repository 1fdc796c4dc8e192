import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConnectionError } from './errors.js';
import { send } from './transport.js';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe('the transport over https (loaded only for an https URL)', () => {
  it('a closed port is a ConnectionError naming the refusal', async () => {
    const error = await send({ method: 'GET', url: new URL('https://127.0.0.1:9/'), headers: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('ECONNREFUSED');
  });

  it.skipIf(!hasOpenssl)('speaks TLS: a self-signed server is refused for its certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    try {
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1']);
      expect(made.status, made.stderr.toString()).toBe(0);
      const server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('{}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const error = await send({ method: 'GET', url: new URL(`https://127.0.0.1:${port}/`), headers: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
      server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
