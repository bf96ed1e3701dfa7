import { portOf, startProcessorSimulator } from './processor-simulator/simulator';

/**
 * `npm run processor-simulator` (docs/api.md 6.1): Marqeta's and Lithic's push-provisioning routes
 * on http://127.0.0.1:PORT (PORT: default 4010, 0 for a free port). Prints one JSON line,
 * `{"port": N}`, once it listens; SIGTERM or SIGINT stops it.
 */
async function main(): Promise<void> {
  const text = process.env.PORT || '4010';
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    process.stderr.write(`${JSON.stringify({ code: 'invalid configuration', message: 'PORT: must be a port number from 0 to 65535' })}\n`);
    process.exitCode = 1;
    return;
  }
  const server = await startProcessorSimulator(Number(text));
  process.stdout.write(`${JSON.stringify({ port: portOf(server) })}\n`);
  const stop = () => {
    server.close();
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ code: 'unavailable', message: (error as Error).message })}\n`);
  process.exitCode = 1;
});
