#!/bin/sh
# Kafka 4.1's kafka-producer-perf-test.sh, answered by klog (`klog kafka-producer-perf-test`): same options, same output, same exit codes, no JVM.
# KAFKA_PATH=<the folder above this bin/> works for scripts written against Kafka's tarball, librdkafka's tests
# among them. See packages/cli/README.md for putting it on PATH without shadowing a real Kafka.
self=$(readlink -f "$0" 2>/dev/null || printf '%s' "$0")
exec node "$(dirname "$self")/../../bin/klog.js" kafka-producer-perf-test "$@"
