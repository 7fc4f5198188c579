import { type ApiVersionsRequest, type ApiVersionsResponse, ErrorCode, type RequestHeader } from '@klog/protocol';
import { ADVERTISED_APIS } from '../advertised.js';

/** KIP-511: client software name and version, as Kafka's `ApiVersionsRequest.isValid` checks them. */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** ApiVersions: the versions klog serves (see advertised.ts). */
export function handleApiVersions(header: RequestHeader, request: ApiVersionsRequest): ApiVersionsResponse {
  if (
    header.apiVersion >= 3 &&
    !(SOFTWARE_NAME_VERSION.test(request.clientSoftwareName) && SOFTWARE_NAME_VERSION.test(request.clientSoftwareVersion))
  ) {
    return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
  }
  return { errorCode: ErrorCode.NONE, apiKeys: [...ADVERTISED_APIS], throttleTimeMs: 0 };
}

/**
 * ApiVersions in a version klog does not serve: UNSUPPORTED_VERSION, written as version 0 (which every
 * client reads), with the ranges klog serves so the client can retry with one it shares (KIP-511).
 */
export function apiVersionsTooNew(): ApiVersionsResponse {
  return { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [...ADVERTISED_APIS], throttleTimeMs: 0 };
}
