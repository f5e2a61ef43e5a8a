#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# dns-stub.py: a DNS-like resolver and client for tests/guest/netns-docker-dns.sh
# (inside a QEMU guest only), standing in for Docker's embedded DNS server.
#
#   dns-stub.py serve ADDR PORTFILE LOG
#       UDP and TCP listeners on ADDR with ports the kernel picks (as
#       moby's resolver does: net.ListenUDP/net.Listen on 127.0.0.11:0);
#       writes "UDPPORT TCPPORT" to PORTFILE once both are bound.  Every
#       query (a DNS header and question; over TCP with the 2-byte length
#       prefix) is answered with one A record, 10.11.12.13, and the peer
#       address it came from is appended to LOG ("udp peer ADDR" /
#       "tcp peer ADDR", the port left out).
#   dns-stub.py query PROTO ADDR PORT SPORT NAME
#       one query for NAME to ADDR:PORT from source port SPORT (fresh per
#       query: no conntrack entry of an earlier query is reused); prints
#       "answer IP from ADDR:PORT" (UDP: the address the reply came from),
#       "refused", "timeout" (2 s) or "error: ..."
import os
import select
import socket
import struct
import sys


def question(name, qid):
    q = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\0" + struct.pack("!HH", 1, 1)


def answer(query):
    qid, = struct.unpack("!H", query[:2])
    end = 12
    while query[end]:
        end += 1 + query[end]
    qsec = query[12:end + 5]
    hdr = struct.pack("!HHHHHH", qid, 0x8180, 1, 1, 0, 0)
    rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton("10.11.12.13")
    return hdr + qsec + rr


def parse_a(resp):
    end = 12
    while resp[end]:
        end += 1 + resp[end]
    return socket.inet_ntoa(resp[end + 5 + 12:end + 5 + 16])


def serve(addr, portfile, log):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((addr, 0))
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind((addr, 0))
    t.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d %d\n" % (u.getsockname()[1], t.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    while True:
        r, _, _ = select.select([u, t], [], [])
        if u in r:
            q, peer = u.recvfrom(512)
            with open(log, "a") as f:
                f.write("udp peer %s\n" % peer[0])
            u.sendto(answer(q), peer)
        if t in r:
            c, peer = t.accept()
            with open(log, "a") as f:
                f.write("tcp peer %s\n" % peer[0])
            c.settimeout(5)
            try:
                n, = struct.unpack("!H", c.recv(2))
                q = b""
                while len(q) < n:
                    q += c.recv(n - len(q))
                a = answer(q)
                c.sendall(struct.pack("!H", len(a)) + a)
            except (OSError, struct.error):
                pass
            c.close()


def query(proto, addr, port, sport, name):
    q = question(name, 0x1234)
    kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
    s = socket.socket(socket.AF_INET, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", sport))
    s.settimeout(2)
    try:
        if proto == "udp":
            s.connect((addr, port))
            s.send(q)
            # recvfrom on the connected socket: the reply's source, which
            # the kernel matched against the connected peer
            resp, src = s.recvfrom(512)
        else:
            s.connect((addr, port))
            s.sendall(struct.pack("!H", len(q)) + q)
            n, = struct.unpack("!H", s.recv(2))
            resp = b""
            while len(resp) < n:
                resp += s.recv(n - len(resp))
            src = s.getpeername()
        print("answer %s from %s:%d" % (parse_a(resp), src[0], src[1]))
    except ConnectionRefusedError:
        print("refused")
    except socket.timeout:
        print("timeout")
    except OSError as e:
        print("error: %s" % e)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        query(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
