import {
  type ApiCodec,
  DescribeGroups,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  Heartbeat,
  JoinGroup,
  SyncGroup,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { RawClient } from '../../support/raw-client.js';

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ groupInitialRebalanceDelayMs: 0 });
});
afterAll(() => b.stop());

async function ask<Req, Res>(
  c: RawClient,
  codec: ApiCodec<Req, Res>,
  version: number,
  body: Req,
): Promise<Res> {
  c.send(encodeRequest(codec as ApiCodec<Req, unknown>, version, 1, 'group-api', body));
  return decodeResponse(codec as ApiCodec<unknown, Res>, version, await c.next()).body;
}

describe('the group APIs on the wire', () => {
  it('protocol metadata and assignments are kept as sent, whatever the connection sends next', async () => {
    const c = await RawClient.connect(b.port);
    const metadata = Uint8Array.from({ length: 64 }, (_, i) => i);
    const assignment = Uint8Array.from({ length: 48 }, (_, i) => 200 - i);
    const join = {
      groupId: 'bytes',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata }],
    };
    const first = await ask(c, JoinGroup, 5, { ...join, memberId: '' });
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const joined = await ask(c, JoinGroup, 5, { ...join, memberId: first.memberId });
    expect(Buffer.from(joined.members[0]!.metadata)).toEqual(Buffer.from(metadata));
    const synced = await ask(c, SyncGroup, 3, {
      groupId: 'bytes',
      generationId: joined.generationId,
      memberId: joined.memberId,
      groupInstanceId: null,
      assignments: [{ memberId: joined.memberId, assignment }],
    });
    expect(Buffer.from(synced.assignment)).toEqual(Buffer.from(assignment));
    // Requests after it reuse the connection's frame buffer: the group must hold its own copy.
    for (let i = 0; i < 3; i++) {
      const hb = await ask(c, Heartbeat, 3, {
        groupId: 'bytes'.padEnd(200, '!'),
        generationId: 1,
        memberId: 'x'.repeat(200),
        groupInstanceId: null,
      });
      expect(hb.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    }
    const described = await ask(c, DescribeGroups, 5, {
      groups: ['bytes'],
      includeAuthorizedOperations: false,
    });
    expect(described.groups[0]).toMatchObject({
      groupState: 'Stable',
      protocolType: 'consumer',
      protocolData: 'range',
    });
    expect(Buffer.from(described.groups[0]!.members[0]!.memberMetadata)).toEqual(Buffer.from(metadata));
    expect(Buffer.from(described.groups[0]!.members[0]!.memberAssignment)).toEqual(Buffer.from(assignment));
    expect(described.groups[0]!.members[0]!.clientHost).toBe('/127.0.0.1');
    c.close();
  });
});
