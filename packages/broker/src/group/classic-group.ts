/** The classic group lives in classic/ now, as Kafka's `classic/ClassicGroup`; this path stays for its importers. */
export * from './classic/classic-group.js';
