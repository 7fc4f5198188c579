"""The kernel floor of the broker benchmark: the least a broker that keeps its log in files does with the
bytes a producer sends. It reads them from one loopback connection into one reused 1 MiB buffer and writes
each read to a file, with no protocol, no checks and no interpreter work per byte, so the CPU it spends per
megabyte is the kernel's: TCP receive and the page-cache write.

Usage: file_floor.py BYTES FILE. Prints the 127.0.0.1:port it listens on; after BYTES have come in it
answers "done" and waits for SIGTERM (the bench reads its CPU time first). Debian's Python: /usr/bin/python3.
"""
import os
import signal
import socket
import sys

total = int(sys.argv[1])
path = sys.argv[2]

server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(('127.0.0.1', 0))
server.listen(1)
print(f'127.0.0.1:{server.getsockname()[1]}', flush=True)
conn, _ = server.accept()
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
buffer = bytearray(1 << 20)
view = memoryview(buffer)
received = 0
while received < total:
    n = conn.recv_into(buffer)
    if n == 0:
        sys.exit(f'the sender closed after {received} of {total} bytes')
    written = 0
    while written < n:
        written += os.write(fd, view[written:n])
    received += n
os.close(fd)
conn.sendall(b'done')
conn.shutdown(socket.SHUT_WR)
signal.pause()
