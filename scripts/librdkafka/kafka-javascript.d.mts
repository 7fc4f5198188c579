// Types of kafka-javascript.mjs, for the broker's embedded-example test.
export declare const KAFKA_JAVASCRIPT: string;
/** The built package's folder (its `.klog-built` stamp marks a finished build). */
export declare function kafkaJavascriptDir(): string;
/** Builds it once (npm pack, dependencies without scripts, the binding against librdkafka 2.15.1). */
export declare function ensureKafkaJavascript(): string;
