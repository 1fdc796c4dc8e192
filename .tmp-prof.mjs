const { startServer } = await import('/work/main/dist/server/app.js');
const s = await startServer({ dbPath: 'postgres://postgres@127.0.0.1:5432/svc_prof', port: 0, log(){}, env: {}, payments: 'sandbox', rateLimitRequestsPerMinute: 1e9, rateLimitTokensPerMinute: 1e9 });
const key = s.bootstrap?.liveKey ?? process.env.KEY;
console.error('key', key);
const body = JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
const t = performance.now(); const cpu0 = process.cpuUsage();
for (let i = 0; i < 500; i++) { const r = await fetch(s.url + '/api/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body }); if (r.status !== 200) console.error(r.status, await r.text()); else await r.text(); }
const cpu = process.cpuUsage(cpu0);
console.log('per request', ((performance.now() - t) / 500).toFixed(2), 'ms; cpu', ((cpu.user + cpu.system) / 500).toFixed(0), 'µs');
await s.close();
