/**
 * `kafka-dump-log.sh --offsets-decoder`: the records of `__consumer_offsets` shown as what they mean, in
 * the JSON Kafka 4's decoder prints (the record's key type or value version, and its fields, byte fields
 * in base64), a tombstone's payload as `<DELETE>`. A record that is not one of the coordinator's is shown
 * as the tool shows it without the decoder.
 */
import {
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  decodeOffsetsRecordKey,
  type OffsetsRecordKey,
} from '@klog/protocol';

const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/** ` key: … payload: …` for one record, or undefined when it is not a coordinator record. */
export function offsetsRecordText(key: Uint8Array | null, value: Uint8Array | null): string | undefined {
  if (key === null) return undefined;
  let k: OffsetsRecordKey;
  try {
    k = decodeOffsetsRecordKey(key);
  } catch {
    return undefined;
  }
  const keyText =
    k.kind === 'offsetCommit'
      ? JSON.stringify({
          type: String(k.version),
          data: { group: k.group, topic: k.topic, partition: k.partition },
        })
      : JSON.stringify({ type: String(k.version), data: { group: k.group } });
  if (value === null) return ` key: ${keyText} payload: <DELETE>`;
  try {
    if (k.kind === 'offsetCommit') {
      const { version, ...v } = decodeOffsetCommitValue(value);
      const data: Record<string, unknown> = { offset: v.offset };
      if (version >= 3) data.leaderEpoch = v.leaderEpoch;
      data.metadata = v.metadata;
      data.commitTimestamp = v.commitTimestamp;
      if (version === 1) data.expireTimestamp = v.expireTimestamp;
      return ` key: ${keyText} payload: ${JSON.stringify({ version: String(version), data })}`;
    }
    const { version, ...v } = decodeGroupMetadataValue(value);
    const data = {
      protocolType: v.protocolType,
      generation: v.generation,
      protocol: v.protocol,
      leader: v.leader,
      ...(version >= 2 ? { currentStateTimestamp: v.currentStateTimestamp } : {}),
      members: v.members.map((m) => ({
        memberId: m.memberId,
        ...(version >= 3 ? { groupInstanceId: m.groupInstanceId } : {}),
        clientId: m.clientId,
        clientHost: m.clientHost,
        ...(version >= 1 ? { rebalanceTimeout: m.rebalanceTimeout } : {}),
        sessionTimeout: m.sessionTimeout,
        subscription: base64(m.subscription),
        assignment: base64(m.assignment),
      })),
    };
    return ` key: ${keyText} payload: ${JSON.stringify({ version: String(version), data })}`;
  } catch (error) {
    return ` key: ${keyText} payload: (not a value of this key: ${(error as Error).message})`;
  }
}
