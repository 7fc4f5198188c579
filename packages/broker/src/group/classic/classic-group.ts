/**
 * One consumer group of the classic protocol, as Kafka's `ClassicGroup` and `ClassicGroupMember` hold it:
 * its state, generation, protocol type and chosen protocol, leader, members (in join order), members
 * that were told MEMBER_ID_REQUIRED and have not come back yet, and members the leader's assignment has not
 * reached. The transitions are Kafka's; what drives them is in classic-group-ops.ts. As Kafka's, it is a
 * `Group`: the offsets and admin paths ask it whether a commit, a fetch or a deletion may go ahead.
 */
import { consumerSubscriptionTopics, type ErrorName } from '@klog/protocol';
import type { Group } from '../group.js';
import { OffsetExpirationCondition, SINCE_COMMIT } from '../offset-expiration-condition.js';

/** Kafka's `ClassicGroupState`, and the states each may be entered from. */
export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export interface Protocol {
  readonly name: string;
  /** The member's metadata for this protocol (a consumer's subscription), never read by the broker. */
  readonly metadata: Uint8Array;
}

export interface JoinResult {
  readonly errorCode: ErrorName;
  readonly generationId: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly leader: string;
  readonly memberId: string;
  /** Every member and its metadata for the chosen protocol: for the leader only. */
  readonly members: readonly { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[];
}

export interface SyncResult {
  readonly errorCode: ErrorName;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignment: Uint8Array;
}

export const EMPTY_BYTES = new Uint8Array(0);

export class ClassicGroupMember {
  assignment: Uint8Array = EMPTY_BYTES;
  /** The JoinGroup waiting for the rebalance to complete (the member is "awaiting join"). */
  awaitingJoin: ((r: JoinResult) => void) | undefined;
  /** The SyncGroup waiting for the leader's assignment. */
  awaitingSync: ((r: SyncResult) => void) | undefined;
  /** Joined in this rebalance and not yet through one: expires by the new-member join timeout. */
  isNew = false;

  constructor(
    public memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: readonly Protocol[],
  ) {}

  metadata(protocol: string): Uint8Array | undefined {
    return this.protocols.find((p) => p.name === protocol)?.metadata;
  }

  /** Kafka's `ClassicGroupMember.matches`: same protocols, same metadata bytes, same order. */
  matches(protocols: readonly Protocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every(
      (p, i) => p.name === this.protocols[i]!.name && bytesEqual(p.metadata, this.protocols[i]!.metadata),
    );
  }

  /** Kafka's `hasSatisfiedHeartbeat`: a member in a rebalance needs no heartbeat, unless it is new. */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.awaitingJoin !== undefined || this.awaitingSync !== undefined;
  }
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class ClassicGroup implements Group {
  readonly type = 'classic';
  state: GroupState = 'Empty';
  /** When the group entered its state: the base of offset expiry once Empty. */
  stateTimestamp: number;
  generationId = 0;
  #protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, ClassicGroupMember>();
  /** Told MEMBER_ID_REQUIRED; expected back with that id within the session timeout (KIP-394). */
  readonly pendingMembers = new Set<string>();
  /** Members of this generation that have not sent their SyncGroup yet. */
  readonly pendingSyncMembers = new Set<string>();
  /** group.instance.id → member id (static membership, KIP-345). */
  readonly staticMembers = new Map<string, string>();
  /** A member joined while the initial rebalance delay ran (`InitialDelayedJoin` waits again). */
  newMemberAdded = false;

  constructor(
    readonly groupId: string,
    nowMs: number,
  ) {
    this.stateTimestamp = nowMs;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  isEmpty(): boolean {
    return this.state === 'Empty';
  }

  stateAsString(): string {
    return this.state;
  }

  /** The protocol type of its members (`consumer`, `connect`…): null until a member joined, or for offsets only. */
  protocolType(): string | null {
    return this.#protocolType;
  }

  /** The protocol type a loaded GroupMetadata record gives (Kafka's `ClassicGroup.fromRecord`). */
  setProtocolType(protocolType: string | null): void {
    this.#protocolType = protocolType;
  }

  transitionTo(state: GroupState, nowMs: number): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new Error(`group ${this.groupId}: ${this.state} → ${state} is not a transition Kafka makes`);
    }
    this.state = state;
    this.stateTimestamp = nowMs;
  }

  /** Kafka's `canRebalance`: a rebalance may start from these states. */
  canRebalance(): boolean {
    return this.state === 'Stable' || this.state === 'CompletingRebalance' || this.state === 'Empty';
  }

  add(member: ClassicGroupMember): void {
    if (this.members.size === 0) this.#protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
  }

  remove(memberId: string): ClassicGroupMember | undefined {
    const member = this.members.get(memberId);
    if (member === undefined) return undefined;
    this.members.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
      this.staticMembers.delete(member.groupInstanceId);
    }
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null;
    return member;
  }

  /** The member holding a static instance id, and its id (Kafka's `staticMemberId`). */
  staticMember(groupInstanceId: string): ClassicGroupMember | undefined {
    const id = this.staticMembers.get(groupInstanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  /** A rejoining static member gets a new member id; the old one is fenced (Kafka's `replaceStaticMember`). */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): ClassicGroupMember {
    const member = this.members.get(oldMemberId)!;
    this.members.delete(oldMemberId);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    this.staticMembers.set(groupInstanceId, newMemberId);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    return member;
  }

  get awaitingJoinCount(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.awaitingJoin !== undefined) n++;
    return n;
  }

  /** Kafka's `hasAllMembersJoined`: every member rejoined and nobody is still fetching a member id. */
  hasAllMembersJoined(): boolean {
    return this.members.size === this.awaitingJoinCount && this.pendingMembers.size === 0;
  }

  /** The longest rebalance timeout of the members: how long a rebalance waits for them to rejoin. */
  rebalanceTimeoutMs(): number {
    let t = 0;
    for (const m of this.members.values()) t = Math.max(t, m.rebalanceTimeoutMs);
    return t;
  }

  /** Protocols every member supports (Kafka's `candidateProtocols`), in the first member's order. */
  candidateProtocols(): string[] {
    const all = [...this.members.values()];
    if (all.length === 0) return [];
    return all[0]!.protocols
      .map((p) => p.name)
      .filter((name) => all.every((m) => m.metadata(name) !== undefined));
  }

  /** Kafka's `supportsProtocols`: a joining member must share the type and one protocol with everyone. */
  supportsProtocols(protocolType: string, protocols: readonly Protocol[]): boolean {
    if (this.members.size === 0) return protocolType !== '' && protocols.length > 0;
    if (protocolType !== this.#protocolType) return false;
    const candidates = new Set(this.candidateProtocols());
    return protocols.some((p) => candidates.has(p.name));
  }

  /** Kafka's `selectProtocol`: each member votes for its most preferred candidate; most votes wins. */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>(candidates.map((c) => [c, 0]));
    for (const m of this.members.values()) {
      const choice = m.protocols.find((p) => votes.has(p.name))!.name;
      votes.set(choice, votes.get(choice)! + 1);
    }
    let best = candidates[0]!;
    for (const c of candidates) if (votes.get(c)! > votes.get(best)!) best = c;
    return best;
  }

  /** Kafka's `initNextGeneration`: a new generation, CompletingRebalance with members, else Empty. */
  initNextGeneration(nowMs: number): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.transitionTo('CompletingRebalance', nowMs);
    } else {
      this.protocolName = null;
      this.transitionTo('Empty', nowMs);
    }
    this.pendingSyncMembers.clear();
    for (const id of this.members.keys()) this.pendingSyncMembers.add(id);
  }

  /** UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID, or undefined for a member of the group (Kafka's `validateMember`). */
  validateMember(memberId: string, groupInstanceId: string | null): ErrorName | undefined {
    if (groupInstanceId !== null) {
      const holder = this.staticMembers.get(groupInstanceId);
      if (holder !== undefined && holder !== memberId) return 'FENCED_INSTANCE_ID';
    }
    return this.members.has(memberId) ? undefined : 'UNKNOWN_MEMBER_ID';
  }

  /** Kafka's `ClassicGroup.validateOffsetCommit` (the API version changes nothing for a classic group). */
  validateOffsetCommit(
    memberId: string,
    instanceId: string | null,
    generationId: number,
    _apiVersion: number,
  ): ErrorName | undefined {
    if (this.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    // A commit from outside the group protocol (an admin tool, a consumer with assign()): no generation.
    if (generationId < 0 && this.is('Empty')) return undefined;
    const invalid = this.validateMember(memberId, instanceId);
    if (invalid !== undefined) return invalid;
    if (generationId !== this.generationId) return 'ILLEGAL_GENERATION';
    if (this.is('CompletingRebalance')) return 'REBALANCE_IN_PROGRESS';
    return undefined;
  }

  /** klog's OffsetFetch asks nothing of a classic group's member (OffsetFetch v9's member fields come later). */
  validateOffsetFetch(_memberId: string | null, _memberEpoch: number): ErrorName | undefined {
    return undefined;
  }

  /** Kafka's `ClassicGroup.validateOffsetDelete`: a Dead group is gone. */
  validateOffsetDelete(): ErrorName | undefined {
    return this.is('Dead') ? 'GROUP_ID_NOT_FOUND' : undefined;
  }

  /** Kafka's `ClassicGroup.validateDeleteGroup`: only an Empty group may be deleted. */
  validateDeleteGroup(): ErrorName | undefined {
    if (this.is('Dead')) return 'GROUP_ID_NOT_FOUND';
    return this.is('Empty') ? undefined : 'NON_EMPTY_GROUP';
  }

  /**
   * Kafka's `ClassicGroup.offsetExpirationCondition`: a simple group's offsets (no protocol) count from each
   * commit; an Empty group's from the time it became Empty; a Stable `consumer` group whose subscriptions
   * can be read, from each commit (only offsets of topics it does not consume are looked at); in any other
   * state none expires.
   */
  offsetExpirationCondition(): OffsetExpirationCondition | undefined {
    if (this.#protocolType === null) return SINCE_COMMIT;
    if (this.is('Empty')) return new OffsetExpirationCondition(() => this.stateTimestamp);
    if (this.#protocolType === 'consumer' && this.is('Stable') && this.#subscriptionsKnown())
      return SINCE_COMMIT;
    return undefined;
  }

  /** Kafka's `subscribedTopics.isPresent()`: every member's `consumer` subscription decodes. */
  #subscriptionsKnown(): boolean {
    if (this.protocolName === null || this.members.size === 0) return false;
    for (const m of this.members.values())
      if (consumerSubscriptionTopics(m.metadata(this.protocolName) ?? EMPTY_BYTES) === undefined)
        return false;
    return true;
  }

  /**
   * Kafka's `ClassicGroup.isSubscribedToTopic`: a topic of a non-empty `consumer` group's subscriptions;
   * every topic when a subscription cannot be read.
   */
  isSubscribedToTopic(topic: string): boolean {
    if (this.is('Empty') || this.#protocolType !== 'consumer' || this.protocolName === null) return false;
    for (const m of this.members.values()) {
      const t = consumerSubscriptionTopics(m.metadata(this.protocolName) ?? EMPTY_BYTES);
      if (t === undefined || t.includes(topic)) return true;
    }
    return false;
  }
}
