"""kafka-python (Debian's python3-kafka, a pure-Python client no other test drives) against klog serve:
create a topic, produce, sit idle past the broker's connections.max.idle.ms, produce again on the same
producer, then read everything back through a consumer group whose fetches wait longer than that limit.
Prints one JSON line of what it saw. Usage: kafka_python_idle.py HOST:PORT IDLE_SECONDS FETCH_WAIT_MS"""
import json
import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic

bootstrap, idle_s, fetch_wait_ms = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
TOPIC, FIRST, LATE = 'kafka-python-idle', 3000, 100

admin = KafkaAdminClient(bootstrap_servers=bootstrap)
admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=1)])
admin.close()

producer = KafkaProducer(bootstrap_servers=bootstrap, acks='all', linger_ms=5)
first = [producer.send(TOPIC, key=b'k%d' % i, value=b'v%d' % i) for i in range(FIRST)]
producer.flush()
first_acked = sum(1 for f in first if f.get(timeout=30))
time.sleep(idle_s)
late = [producer.send(TOPIC, key=b'late%d' % i, value=b'late') for i in range(LATE)]
producer.flush()
late_acked = sum(1 for f in late if f.get(timeout=30))
producer.close()

consumer = KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id='kafka-python-idle',
                         auto_offset_reset='earliest', enable_auto_commit=False,
                         fetch_max_wait_ms=fetch_wait_ms, consumer_timeout_ms=30000)
keys = set()
for message in consumer:
    keys.add(message.key.decode())
    if len(keys) == FIRST + LATE:
        break
consumer.commit()
committed = sum(consumer.committed(tp) or 0 for tp in consumer.assignment())
consumer.close()
print(json.dumps({'firstAcked': first_acked, 'lateAcked': late_acked, 'keys': sorted(keys),
                  'committed': committed}))
