"""confluent-kafka (librdkafka) as the broker tests drive it: run with Debian's /usr/bin/python3.

  clients.py produce <bootstrap> <topic> <count> <prefix>
      an idempotent producer (acks=all), keyed messages with a header, several per batch and several
      requests in flight; prints one JSON line: the delivery reports [key, partition, offset] or the error.
  clients.py consume <bootstrap> <topic> <partitions>
      a Consumer with assign() from the beginning and no group API (a group.id is required by the
      library, auto commit is off); reads every partition to its high watermark; prints one JSON line:
      the records [partition, offset, key, value, headers].
  clients.py transactional <bootstrap>
      init_transactions() on a transactional producer; prints the error it gets.
  clients.py subscribe <bootstrap> <topic>
      a Consumer in a consumer group (subscribe()); prints the first error it reports.
  clients.py group <bootstrap> <topic> <group>
      a Consumer in a consumer group (subscribe()) that commits synchronously after each batch it reads,
      until SIGTERM closes it (leaving the group); one JSON line per event: {"assigned": [partitions]} after
      each rebalance, {"r": [partition, offset, key]} per record, {"closed": true} at the end.
"""
import json
import signal
import sys

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

# Short client timeouts, so a lost response is retried quickly (kafka-clients research, "Short timeouts").
COMMON = {'socket.timeout.ms': 1000, 'log_level': 3}


def produce(bootstrap, topic, count, prefix):
    p = Producer({**COMMON, 'bootstrap.servers': bootstrap, 'enable.idempotence': True, 'acks': 'all',
                  'linger.ms': 20, 'batch.num.messages': 50, 'max.in.flight.requests.per.connection': 5,
                  'message.timeout.ms': 60000})
    reports, errors = [], []

    def delivered(err, msg):
        if err is not None:
            errors.append(str(err))
        else:
            reports.append([msg.key().decode(), msg.partition(), msg.offset()])

    for i in range(count):
        key = f'{prefix}-{i}'
        while True:
            try:
                p.produce(topic, value=f'value of {key}'.encode(), key=key.encode(),
                          headers=[('source', b'confluent-kafka'), ('n', str(i).encode())], on_delivery=delivered)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    left = p.flush(120)
    print(json.dumps({'reports': reports, 'errors': errors, 'undelivered': left}))


def consume(bootstrap, topic, partitions):
    c = Consumer({**COMMON, 'bootstrap.servers': bootstrap, 'group.id': 'klog-test-unused',
                  'enable.auto.commit': False, 'enable.partition.eof': True})
    tps = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)]
    high = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in range(partitions)}
    c.assign(tps)
    records, done = [], {p for p in range(partitions) if high[p] == 0}
    while len(done) < partitions:
        for msg in c.consume(500, timeout=0.5):
            if msg.error() is not None:
                if msg.error().code() == -191:  # _PARTITION_EOF
                    if msg.offset() >= high[msg.partition()]:
                        done.add(msg.partition())
                    continue
                raise KafkaException(msg.error())
            headers = {k: v.decode() for k, v in (msg.headers() or [])}
            records.append([msg.partition(), msg.offset(), msg.key().decode(), msg.value().decode(), headers])
    c.close()
    print(json.dumps({'records': records, 'high': high}))


def transactional(bootstrap):
    p = Producer({**COMMON, 'bootstrap.servers': bootstrap, 'transactional.id': 'klog-test-txn'})
    try:
        p.init_transactions(20)
        print(json.dumps({'error': None}))
    except KafkaException as e:
        err = e.args[0]
        print(json.dumps({'error': err.name(), 'fatal': err.fatal(), 'retriable': err.retriable(), 'text': err.str()}))


def subscribe(bootstrap, topic):
    errors = []
    c = Consumer({**COMMON, 'bootstrap.servers': bootstrap, 'group.id': 'klog-test-group',
                  'error_cb': lambda e: errors.append(e)})
    c.subscribe([topic])
    for _ in range(20):
        msg = c.poll(0.5)
        if msg is not None and msg.error() is not None:
            errors.append(msg.error())
        if errors:
            break
    c.close()
    e = errors[0] if errors else None
    print(json.dumps({'error': None if e is None else e.name(), 'text': None if e is None else e.str()}))


def group(bootstrap, topic, group_id):
    out = lambda o: (sys.stdout.write(json.dumps(o) + '\n'), sys.stdout.flush())
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    c = Consumer({**COMMON, 'bootstrap.servers': bootstrap, 'group.id': group_id, 'enable.auto.commit': False,
                  'auto.offset.reset': 'earliest', 'session.timeout.ms': 4000, 'heartbeat.interval.ms': 500})
    owned = set()

    def assigned(consumer, partitions):
        owned.update(p.partition for p in partitions)
        out({'assigned': sorted(owned)})

    def revoked(consumer, partitions):
        owned.difference_update(p.partition for p in partitions)

    c.subscribe([topic], on_assign=assigned, on_revoke=revoked)
    while not stop:
        msgs = [m for m in c.consume(100, timeout=0.2) if m.error() is None]
        for m in msgs:
            out({'r': [m.partition(), m.offset(), m.key().decode()]})
        if msgs:
            try:
                c.commit(asynchronous=False)
            except KafkaException:
                pass  # a rebalance began: the next owner reads from the last commit
    c.close()
    out({'closed': True})


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'produce':
        produce(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif cmd == 'consume':
        consume(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == 'transactional':
        transactional(sys.argv[2])
    elif cmd == 'subscribe':
        subscribe(sys.argv[2], sys.argv[3])
    elif cmd == 'group':
        group(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(f'unknown command {cmd}')
