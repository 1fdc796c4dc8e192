import postgres from '/work/main/node_modules/postgres/src/index.js';
const { startServer } = await import('/work/main/dist/server/app.js');
const admin = postgres('postgres://postgres@127.0.0.1:5432/svc_prof', { onnotice(){}, max: 1 });
const s = await startServer({ dbPath: 'postgres://postgres@127.0.0.1:5432/svc_prof?application_name=svcprof', port: 0, log(){}, env: {}, payments: 'sandbox', rateLimitRequestsPerMinute: 1e9, rateLimitTokensPerMinute: 1e9 });
const [{ liveKey }] = [{ liveKey: s.bootstrap?.liveKey }];
const key = liveKey ?? (await admin`SELECT 1`, process.env.KEY);
const body = JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
const stat = async () => (await admin`SELECT xact_commit::int AS c FROM pg_stat_database WHERE datname = 'svc_prof'`)[0].c;
let calls = 0;
const before = await stat();
const t = performance.now();
for (let i = 0; i < 200; i++) { const r = await fetch(s.url + '/api/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${process.env.KEY}`, 'content-type': 'application/json' }, body }); await r.text(); }
console.log('ms/req', ((performance.now() - t) / 200).toFixed(2));
await new Promise(r => setTimeout(r, 600));
console.log('commits per request', ((await stat()) - before) / 200);
await s.close(); await admin.end();
