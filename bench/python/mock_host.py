"""Hosts librdkafka's in-process mock cluster (test.mock.num.brokers=1) for the broker benchmark.

Prints the mock broker's host:port, then keeps the cluster alive until stdin closes. The mock is a
real TCP listener inside this process, so kcat processes can produce to it and fetch from it exactly
as they do from `klog serve`. Run with Debian's Python: /usr/bin/python3 (python3-confluent-kafka).
"""
import sys

from confluent_kafka import Producer

host = Producer({'test.mock.num.brokers': 1, 'log_level': 0})
metadata = host.list_topics(timeout=10)
broker = next(iter(metadata.brokers.values()))
print(f'{broker.host}:{broker.port}', flush=True)
sys.stdin.read()
