import {
  ApiVersions,
  type ApiVersionsRequest,
  type ApiVersionsResponse,
  ErrorCode,
  errorName,
  type RequestHeader,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { AdvertisedApi, BrokerContext } from '../context.js';

/** KIP-511: client software name and version, as Kafka's `ApiVersionsRequest.isValid` checks them. */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** ApiVersions: the versions klog serves (see advertised.ts). */
function handleApiVersions(
  header: RequestHeader,
  request: ApiVersionsRequest,
  advertised: readonly AdvertisedApi[],
): ApiVersionsResponse {
  if (
    header.apiVersion >= 3 &&
    !(
      SOFTWARE_NAME_VERSION.test(request.clientSoftwareName) &&
      SOFTWARE_NAME_VERSION.test(request.clientSoftwareVersion)
    )
  ) {
    return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
  }
  return { errorCode: ErrorCode.NONE, apiKeys: [...advertised], throttleTimeMs: 0 };
}

/**
 * ApiVersions in a version klog does not serve: UNSUPPORTED_VERSION, written as version 0 (which every
 * client reads), with the ranges klog serves so the client can retry with one it shares (KIP-511).
 */
export function apiVersionsTooNew(advertised: readonly AdvertisedApi[]): ApiVersionsResponse {
  return { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [...advertised], throttleTimeMs: 0 };
}

export const apiVersionsApi = defineApi({
  codec: ApiVersions,
  versions: { min: 0, max: 3 },
  handle: (ctx: Pick<BrokerContext, 'advertisedApis'>, header, request) =>
    handleApiVersions(header, request, ctx.advertisedApis),
  summary: (_, response) => errorName(response.errorCode),
});
