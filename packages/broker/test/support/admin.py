"""confluent-kafka's AdminClient (librdkafka 2.0.2) against klog, as the admin tests drive it: run with
Debian's /usr/bin/python3.

  admin.py lifecycle <bootstrap> <topic>
      create_topics with configs, describe_configs, alter_configs, describe_configs again,
      create_partitions, delete_topics; prints one JSON line per step.
  admin.py list <bootstrap>
      list_topics; prints the topic names.

confluent-kafka 1.7.0 has no delete_records (added in 2.4): the tests delete records through the others.
"""
import json
import sys

from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic

COMMON = {'socket.timeout.ms': 5000, 'log_level': 3}


def out(step, value):
    print(json.dumps({'step': step, 'value': value}), flush=True)


def configs(admin, topic, names):
    futures = admin.describe_configs([ConfigResource('topic', topic)], request_timeout=10)
    entries = list(futures.values())[0].result(timeout=10)
    return {n: {'value': entries[n].value, 'source': entries[n].source, 'is_default': entries[n].is_default,
                'read_only': entries[n].is_read_only} for n in names if n in entries}


def lifecycle(bootstrap, topic):
    admin = AdminClient({**COMMON, 'bootstrap.servers': bootstrap})
    names = ['cleanup.policy', 'retention.ms', 'segment.bytes']
    new = NewTopic(topic, num_partitions=1, replication_factor=1,
                   config={'cleanup.policy': 'compact', 'retention.ms': '3600000'})
    for f in admin.create_topics([new], request_timeout=10).values():
        f.result(timeout=10)
    out('created', True)
    out('described', configs(admin, topic, names))
    # AlterConfigs replaces the topic's whole set: cleanup.policy goes back to its default.
    resource = ConfigResource('topic', topic, set_config={'retention.ms': '7200000', 'segment.bytes': '1048576'})
    for f in admin.alter_configs([resource], request_timeout=10).values():
        f.result(timeout=10)
    out('altered', configs(admin, topic, names))
    try:
        bad = ConfigResource('topic', topic, set_config={'compression.zstd.level': '99'})
        for f in admin.alter_configs([bad], request_timeout=10).values():
            f.result(timeout=10)
        out('refused', None)
    except Exception as e:  # KafkaException
        out('refused', str(e))
    for f in admin.create_partitions([NewPartitions(topic, 3)], request_timeout=10).values():
        f.result(timeout=10)
    md = admin.list_topics(topic=topic, timeout=10)
    out('partitions', len(md.topics[topic].partitions))
    for f in admin.delete_topics([topic], request_timeout=10).values():
        f.result(timeout=10)
    out('deleted', sorted(admin.list_topics(timeout=10).topics.keys()))


def list_topics(bootstrap):
    admin = AdminClient({**COMMON, 'bootstrap.servers': bootstrap})
    out('topics', sorted(admin.list_topics(timeout=10).topics.keys()))


if __name__ == '__main__':
    {'lifecycle': lifecycle, 'list': list_topics}[sys.argv[1]](*sys.argv[2:])
