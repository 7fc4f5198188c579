import { Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs, pythonTransactional } from '../../support/clients.js';
import { RawClient, kafkajs as rawKafkajs } from '../../support/raw-client.js';

/**
 * Transactions are the chapter's "drawn, not built": a transactional client gets an error it reports and
 * gives up on, rather than one it retries forever. FindCoordinator names this broker as the transaction
 * coordinator too, so every transactional client goes on to InitProducerId with its transactional id, which
 * is refused with a fatal error (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and the broker's log says why.
 */
/** Real client processes on a busy 2-core machine: time out only on a hang. */
const LONG_TIMEOUT_MS = 300_000;
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
});
afterAll(() => b.stop());

describe('transactional producers get a clear, final error', { timeout: LONG_TIMEOUT_MS }, () => {
  it('confluent-kafka (librdkafka): init_transactions() fails fatally, not retriable', async () => {
    const out = await pythonTransactional(b.port);
    expect(out).toMatchObject({
      error: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      fatal: true,
      retriable: false,
    });
    expect(out.text).toMatch(/Transactional Id authorization failed/i);
  });

  it('KafkaJS: transaction() rejects with a non-retriable TRANSACTIONAL_ID_AUTHORIZATION_FAILED', async () => {
    const producer = kafkajs(b.port).producer({
      transactionalId: 'kjs-txn',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    try {
      await producer.connect();
      await expect(producer.transaction()).rejects.toMatchObject({
        type: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
        retriable: false,
      });
    } finally {
      await producer.disconnect();
    }
  });

  it('@platformatic/kafka: beginTransaction() rejects: InitProducerId answered with an error', async () => {
    const producer = new Producer({
      clientId: 'plt-txn',
      bootstrapBrokers: [`127.0.0.1:${b.port}`],
      idempotent: true,
      retries: 2,
      retryDelay: 100,
      requestTimeout: 1000,
    });
    try {
      await expect(producer.beginTransaction()).rejects.toThrow(
        'Received response with error while executing API InitProducerId(v4)',
      );
    } finally {
      await producer.close();
    }
  });

  it('an InitProducerId naming a transactional id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED, and the log says why', async () => {
    const c = await RawClient.connect(b.port);
    const req = await rawKafkajs('initProducerId', 1, {
      transactionalId: 'my-txn',
      transactionTimeout: 60000,
    });
    c.send(req.frame);
    const answer = await req.decode(await c.next());
    expect(answer.data.errorCode).toBe(53);
    // KafkaJS's own reading of the answer: an error it does not retry.
    await expect(answer.parse()).rejects.toMatchObject({
      type: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      retriable: false,
    });
    c.close();
    expect(
      b.lines.some((l) =>
        l.includes('InitProducerId for transactional id "my-txn" refused: klog does not build transactions'),
      ),
    ).toBe(true);
  });
});
