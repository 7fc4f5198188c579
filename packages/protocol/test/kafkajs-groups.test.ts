import { describe, expect, it } from 'vitest';
import {
  type ApiCodec,
  DeleteGroups,
  DescribeGroups,
  FindCoordinator,
  Heartbeat,
  JoinGroup,
  LeaveGroup,
  ListGroups,
  OffsetCommit,
  OffsetFetch,
  SyncGroup,
} from '../src/index.js';
import { decodeFrame, kafkajsFrame, kafkajsPayload, respond } from './clients.js';

/**
 * KafkaJS 2.2.4's consumer-group requests, every version it has, read by klog's decoders to the values
 * KafkaJS was given, and klog's responses read back by KafkaJS's decoders: the versions the end-to-end
 * tests do not reach (a client takes the highest it shares) checked byte for byte here.
 */
const meta = Buffer.from([0, 1, 2, 3]);

interface Case {
  readonly api: string;
  readonly codec: ApiCodec<unknown, unknown>;
  readonly versions: readonly number[];
  readonly args: unknown;
  readonly request: Record<string, unknown>;
  /** klog's response, or the response by version. */
  readonly response: unknown;
  readonly decoded: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    api: 'findCoordinator',
    codec: FindCoordinator as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2],
    args: { groupId: 'grp', coordinatorKey: 'grp', coordinatorType: 0 },
    request: { key: 'grp', keyType: 0 },
    response: {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      nodeId: 3,
      host: 'h',
      port: 9092,
      coordinators: [],
    },
    decoded: { errorCode: 0, coordinator: { nodeId: 3, host: 'h', port: 9092 } },
  },
  {
    api: 'joinGroup',
    codec: JoinGroup as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2, 3, 4, 5],
    args: {
      groupId: 'grp',
      sessionTimeout: 30000,
      rebalanceTimeout: 60000,
      memberId: 'm',
      groupInstanceId: null,
      protocolType: 'consumer',
      groupProtocols: [{ name: 'range', metadata: meta }],
    },
    request: {
      groupId: 'grp',
      sessionTimeoutMs: 30000,
      memberId: 'm',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: new Uint8Array(meta) }],
    },
    response: {
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 4,
      protocolName: 'range',
      leader: 'm',
      memberId: 'm',
      members: [{ memberId: 'm', groupInstanceId: null, metadata: new Uint8Array(meta) }],
    },
    decoded: { errorCode: 0, generationId: 4, groupProtocol: 'range', leaderId: 'm', memberId: 'm' },
  },
  {
    api: 'syncGroup',
    codec: SyncGroup as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2, 3],
    args: {
      groupId: 'grp',
      generationId: 4,
      memberId: 'm',
      groupInstanceId: null,
      groupAssignment: [{ memberId: 'm', memberAssignment: meta }],
    },
    request: {
      groupId: 'grp',
      generationId: 4,
      memberId: 'm',
      assignments: [{ memberId: 'm', assignment: new Uint8Array(meta) }],
    },
    response: { throttleTimeMs: 0, errorCode: 0, assignment: new Uint8Array(meta) },
    decoded: { errorCode: 0, memberAssignment: meta },
  },
  {
    api: 'heartbeat',
    codec: Heartbeat as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2, 3],
    args: { groupId: 'grp', groupGenerationId: 4, memberId: 'm', groupInstanceId: null },
    request: { groupId: 'grp', generationId: 4, memberId: 'm' },
    response: { throttleTimeMs: 0, errorCode: 0 },
    decoded: { errorCode: 0 },
  },
  {
    api: 'leaveGroup',
    codec: LeaveGroup as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2, 3],
    args: { groupId: 'grp', memberId: 'm', members: [{ memberId: 'm', groupInstanceId: null }] },
    request: { groupId: 'grp' },
    response: (v: number) => ({
      throttleTimeMs: 0,
      errorCode: 0,
      members: v >= 3 ? [{ memberId: 'm', groupInstanceId: null, errorCode: 0 }] : [],
    }),
    decoded: { errorCode: 0 },
  },
  {
    api: 'offsetCommit',
    codec: OffsetCommit as ApiCodec<unknown, unknown>,
    versions: [2, 3, 4, 5],
    args: {
      groupId: 'grp',
      groupGenerationId: 4,
      memberId: 'm',
      retentionTime: -1,
      topics: [{ topic: 't', partitions: [{ partition: 1, offset: '42', metadata: null }] }],
    },
    request: {
      groupId: 'grp',
      generationIdOrMemberEpoch: 4,
      memberId: 'm',
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 42 }] }],
    },
    response: {
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, errorCode: 0 }] }],
    },
    decoded: { responses: [{ topic: 't', partitions: [{ partition: 1, errorCode: 0 }] }] },
  },
  {
    api: 'offsetFetch',
    codec: OffsetFetch as ApiCodec<unknown, unknown>,
    versions: [1, 2, 3, 4],
    args: { groupId: 'grp', topics: [{ topic: 't', partitions: [{ partition: 1 }] }] },
    request: { groupId: 'grp', topics: [{ name: 't', partitionIndexes: [1] }] },
    response: {
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 1, committedOffset: 42, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
          ],
        },
      ],
      errorCode: 0,
      groups: [],
    },
    decoded: {
      responses: [{ topic: 't', partitions: [{ partition: 1, offset: '42', metadata: '', errorCode: 0 }] }],
    },
  },
  {
    api: 'listGroups',
    codec: ListGroups as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2],
    args: {},
    request: { statesFilter: [] },
    response: {
      throttleTimeMs: 0,
      errorCode: 0,
      groups: [{ groupId: 'grp', protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' }],
    },
    decoded: { errorCode: 0, groups: [{ groupId: 'grp', protocolType: 'consumer' }] },
  },
  {
    api: 'describeGroups',
    codec: DescribeGroups as ApiCodec<unknown, unknown>,
    versions: [0, 1, 2],
    args: { groupIds: ['grp'] },
    request: { groups: ['grp'] },
    response: {
      throttleTimeMs: 0,
      groups: [
        {
          errorCode: 0,
          groupId: 'grp',
          groupState: 'Stable',
          protocolType: 'consumer',
          protocolData: 'range',
          members: [
            {
              memberId: 'm',
              groupInstanceId: null,
              clientId: 'c',
              clientHost: '/127.0.0.1',
              memberMetadata: new Uint8Array(meta),
              memberAssignment: new Uint8Array(meta),
            },
          ],
          authorizedOperations: -2147483648,
        },
      ],
    },
    decoded: {
      groups: [
        {
          errorCode: 0,
          groupId: 'grp',
          state: 'Stable',
          protocolType: 'consumer',
          protocol: 'range',
          members: [
            {
              memberId: 'm',
              clientId: 'c',
              clientHost: '/127.0.0.1',
              memberMetadata: meta,
              memberAssignment: meta,
            },
          ],
        },
      ],
    },
  },
  {
    api: 'deleteGroups',
    codec: DeleteGroups as ApiCodec<unknown, unknown>,
    versions: [0, 1],
    args: ['grp'],
    request: { groupsNames: ['grp'] },
    response: { throttleTimeMs: 0, results: [{ groupId: 'grp', errorCode: 0 }] },
    decoded: { results: [{ groupId: 'grp', errorCode: 0 }] },
  },
];

describe('KafkaJS 2.2.4 ⇄ klog: the consumer-group APIs', () => {
  for (const c of CASES) {
    for (const version of c.versions) {
      it(`${c.api} v${version}: KafkaJS's request read by klog, klog's response read by KafkaJS`, async () => {
        const { frame, response } = await kafkajsFrame(c.api, version, c.args);
        const d = decodeFrame<Record<string, unknown>>(frame);
        expect(d.header).toMatchObject({ apiKey: c.codec.apiKey, apiVersion: version });
        expect(d.trailing).toBe(0);
        expect(d.body).toMatchObject(c.request);
        const decoded = await response.decode(
          kafkajsPayload(
            respond(
              c.codec,
              version,
              7,
              typeof c.response === 'function' ? (c.response as (v: number) => unknown)(version) : c.response,
            ),
          ),
        );
        expect(decoded).toMatchObject(c.decoded);
      });
    }
  }
});
