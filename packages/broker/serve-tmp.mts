import { Broker, createLogger } from './src/index.js';
const b = await Broker.start({ dataDir: process.argv[2]!, host: '127.0.0.1', port: Number(process.argv[3] ?? 0), groupInitialRebalanceDelayMs: 0, groupMinSessionTimeoutMs: 1000, autoCreateTopics: true, numPartitions: 6, logger: createLogger('info', (l, line) => console.log(l, line)) });
console.log('PORT', b.address.port);
process.on('SIGTERM', async () => { await b.close(); process.exit(0); });
