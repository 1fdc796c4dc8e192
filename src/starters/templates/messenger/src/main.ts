import type { AddressInfo } from 'node:net';
import { createBot } from './bot.js';
import { loadConfig } from './config.js';
import { createMessageServer } from './http.js';
import { connect, registerPage } from './platform.js';
import { asProblem, run } from './problem.js';

/** Resolves on Ctrl+C or a supervisor's stop signal. */
const stopRequested = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });

await run(async () => {
  const config = loadConfig();
  const client = connect(config);
  const explain = (error: unknown) => asProblem(error, config.apiUrl);
  const registration = await registerPage(client, config.pageId, config.model).catch((error: unknown) => {
    throw explain(error);
  });
  console.log(`Registered page ${registration.identifier} on the messenger channel, answering with ${config.model}.`);

  const server = createMessageServer(createBot(client, config.model), explain);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  console.log(`Listening for messages on http://${config.host}:${port}/messages`);
  await stopRequested();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
