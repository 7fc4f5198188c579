import { DescribeCluster, ErrorCode, errorName } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';
import { CLUSTER_OPERATIONS, NO_OPERATIONS } from '../metadata/metadata.js';

/** Kafka's `EndpointType`: brokers (1) or controllers (2) (KIP-919). */
const BROKERS = 1;

/**
 * DescribeCluster (KIP-700): what Metadata says of the cluster, without topics — this one broker at its
 * advertised address, which is also the controller. Asked for controllers (v1, KIP-919), it is that too.
 */
export const describeClusterApi = defineApi({
  codec: DescribeCluster,
  versions: { min: 0, max: 1 },
  handle(ctx: Pick<BrokerContext, 'advertised' | 'clusterId' | 'config'>, _header, request) {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: request.endpointType === 2 ? 2 : BROKERS,
      clusterId: ctx.clusterId,
      controllerId: ctx.config.nodeId,
      brokers: [
        { brokerId: ctx.config.nodeId, host: ctx.advertised.host, port: ctx.advertised.port, rack: null },
      ],
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations
        ? CLUSTER_OPERATIONS
        : NO_OPERATIONS,
    };
  },
  summary: (_, response) => `${errorName(response.errorCode)} cluster ${response.clusterId}`,
});
