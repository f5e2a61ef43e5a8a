#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# peer-listen.py PORT LOG: a TCP listener on 0.0.0.0:PORT (for
# tests/guest/fw-docker.sh, inside a QEMU guest only) that appends the
# address each accepted connection came from ("peer ADDR", the port left
# out: it is the probe's and differs between runs) to LOG.  As vprobe
# serve, it closes a connection only once the peer reset it (vprobe run
# closes with SO_LINGER 0): it never sends a FIN, so a probe's packet
# count is fixed.  Writes "listening" to LOG once bound.
import socket
import sys

port, log = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", port))
s.listen(16)
with open(log, "a") as f:
    f.write("listening\n")
while True:
    c, peer = s.accept()
    with open(log, "a") as f:
        f.write("peer %s\n" % peer[0])
    c.settimeout(10)
    try:
        while c.recv(64):
            pass
    except OSError:
        pass
    c.close()
