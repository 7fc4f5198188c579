"""confluent-kafka (librdkafka) for `klog ack-loss-demo`; run with Debian's /usr/bin/python3.

  confluent_kafka_client.py version
      prints one JSON line: the confluent-kafka and librdkafka versions.
  confluent_kafka_client.py produce <bootstrap> <topic> <count> <prefix> <idempotence:0|1> <in-flight> <batch> <timeout-ms>
      sends <count> messages (key <prefix>-i, value "value of <prefix>-i") to partition 0, at most <batch>
      per request, a response given up on after <timeout-ms> (socket.timeout.ms), and prints one JSON line: what the application was told for each message (its delivery
      report: [key, offset] or [key, error]), in the order the reports came.
  confluent_kafka_client.py guard <in-flight>
      asks librdkafka for an idempotent producer with max.in.flight.requests.per.connection=<in-flight>
      and prints one JSON line: the error it refuses with, or null if it starts.
"""
import json
import sys

import confluent_kafka
from confluent_kafka import KafkaException, Producer

# The same librdkafka settings as kcat's (src/ack-loss/clients/kcat.ts): a lost response is given up on after
# socket.timeout.ms and retried; a message expires only after a minute (message.timeout.ms), far longer than
# any retry here takes on a loaded machine.


def version():
    print(json.dumps({'client': confluent_kafka.version()[0], 'librdkafka': confluent_kafka.libversion()[0]}))


def produce(bootstrap, topic, count, prefix, idempotence, in_flight, batch, timeout_ms):
    p = Producer({'bootstrap.servers': bootstrap, 'enable.idempotence': idempotence, 'acks': 'all',
                  'max.in.flight.requests.per.connection': in_flight, 'batch.num.messages': batch,
                  'linger.ms': 0 if batch == 1 else 5, 'compression.codec': 'none',
                  'socket.timeout.ms': timeout_ms, 'message.timeout.ms': 60000, 'retry.backoff.ms': 100,
                  'log_level': 0})
    reports = []

    def delivered(err, msg):
        key = msg.key().decode()
        reports.append([key, str(err)] if err is not None else [key, msg.offset()])

    for i in range(count):
        key = f'{prefix}-{i}'
        while True:
            try:
                p.produce(topic, value=f'value of {key}'.encode(), key=key.encode(), partition=0,
                          on_delivery=delivered)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    left = p.flush(120)
    print(json.dumps({'reports': reports, 'undelivered': left}))


def guard(in_flight):
    try:
        Producer({'bootstrap.servers': '127.0.0.1:9', 'enable.idempotence': True,
                  'max.in.flight.requests.per.connection': in_flight})
        print(json.dumps({'error': None}))
    except KafkaException as e:
        print(json.dumps({'error': e.args[0].str()}))


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'version':
        version()
    elif cmd == 'produce':
        produce(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6] == '1', int(sys.argv[7]),
                int(sys.argv[8]), int(sys.argv[9]))
    elif cmd == 'guard':
        guard(int(sys.argv[2]))
    else:
        sys.exit(f'unknown command {cmd}')
