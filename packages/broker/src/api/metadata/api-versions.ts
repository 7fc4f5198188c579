import {
  ApiVersions,
  type ApiVersionsRequest,
  type ApiVersionsResponse,
  ErrorCode,
  errorName,
  type RequestHeader,
} from '@klog/protocol';
import { defineApi, sameForEveryRequest } from '../api-handler.js';
import type { AdvertisedApi, BrokerContext } from '../context.js';

/** KIP-511: client software name and version, as Kafka's `ApiVersionsRequest.isValid` checks them. */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * The answer for a list of what is served, made once per list (a broker has one): every connection a client
 * opens asks for it, and its body is then encoded once per version (`sameForEveryRequest`).
 */
const answers = new WeakMap<readonly AdvertisedApi[], ApiVersionsResponse>();
const tooNewAnswers = new WeakMap<readonly AdvertisedApi[], ApiVersionsResponse>();

function served(errorCode: number, advertised: readonly AdvertisedApi[]): ApiVersionsResponse {
  const byList = errorCode === ErrorCode.NONE ? answers : tooNewAnswers;
  let answer = byList.get(advertised);
  if (answer === undefined) {
    // Frozen through: its bytes are encoded once per version, when first asked for.
    const apiKeys = advertised.map((a) => Object.freeze({ ...a }));
    answer = sameForEveryRequest({
      errorCode,
      apiKeys: Object.freeze(apiKeys) as typeof apiKeys,
      throttleTimeMs: 0,
    });
    byList.set(advertised, answer);
  }
  return answer;
}

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
  return served(ErrorCode.NONE, advertised);
}

/**
 * ApiVersions in a version klog does not serve: UNSUPPORTED_VERSION, written as version 0 (which every
 * client reads), with the ranges klog serves so the client can retry with one it shares (KIP-511).
 */
export function apiVersionsTooNew(advertised: readonly AdvertisedApi[]): ApiVersionsResponse {
  return served(ErrorCode.UNSUPPORTED_VERSION, advertised);
}

export const apiVersionsApi = defineApi({
  codec: ApiVersions,
  versions: { min: 0, max: 3 },
  handle: (ctx: Pick<BrokerContext, 'advertisedApis'>, header, request) =>
    handleApiVersions(header, request, ctx.advertisedApis),
  summary: (_, response) => errorName(response.errorCode),
});
