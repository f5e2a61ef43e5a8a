#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Traffic for tests/guest/fw-kube-proxy.sh (inside a QEMU guest only): the
# "pods" behind the services and the clients that reach them through the
# cluster IPs.  Python 3.11's standard library only.
#
#   kp-net.py serve PORT
#       in a backend namespace: a TCP server on 0.0.0.0:PORT; every line a
#       client sends is answered with "LOCAL PEER LINE": the backend's own
#       address (its identity: the DNAT target) and the source address it
#       saw (the client's, or the node's when the packet was masqueraded).
#   kp-net.py probe LABEL SRC DST PORT COUNT SPORT [LABEL SRC ...]...
#       per series, COUNT connections in a row from SRC:SPORT, SPORT+1, ... (explicit
#       source ports: no conntrack tuple is reused, not across engines
#       either) to DST:PORT, one line each; prints
#       "LABEL N ok LOCAL PEER" / "LABEL N refused" / "LABEL N timeout" /
#       "LABEL N unreach" / "LABEL N error:..."; after two timeouts in a
#       row the rest of the series is "skipped" (a DNAT that did not happen
#       costs 2 s per connection under TCG).
#   kp-net.py hold LABEL SRC DST PORT SPORT [LABEL SRC DST PORT SPORT]...
#       opens each connection, sends "before", prints
#       "before LABEL LOCAL PEER", then "ready", and waits for a line on
#       stdin (the caller restores the rules meanwhile); then sends "after"
#       on the same connections and prints "after LABEL LOCAL PEER" (or the
#       error): an established connection across a repeated sync.
import errno
import socket
import socketserver
import sys

TIMEOUT = 2.0


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        local = self.connection.getsockname()[0]
        peer = self.client_address[0]
        for line in self.rfile:
            msg = "%s %s %s\n" % (local, peer, line.decode().strip())
            self.wfile.write(msg.encode())
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def serve(port):
    with Server(("0.0.0.0", int(port)), Handler) as s:
        s.serve_forever()


def connect(src, dst, port, sport):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(TIMEOUT)
    s.bind((src, int(sport)))
    s.connect((dst, int(port)))
    return s


def ask(s, what):
    s.sendall((what + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(256)
        if not chunk:
            raise ConnectionResetError(errno.ECONNRESET, "closed")
        buf += chunk
    local, peer, _ = buf.decode().split(" ", 2)
    return local, peer


def outcome(e):
    if isinstance(e, socket.timeout):
        return "timeout"
    if isinstance(e, ConnectionRefusedError):
        return "refused"
    if isinstance(e, OSError) and e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return "unreach"
    return "error:%s" % e


def probe(label, src, dst, port, count, sport):
    timeouts = 0
    for i in range(int(count)):
        if timeouts >= 2:
            print("%s %d skipped" % (label, i + 1))
            continue
        try:
            s = connect(src, dst, port, int(sport) + i)
            try:
                local, peer = ask(s, "probe")
            finally:
                s.close()
            print("%s %d ok %s %s" % (label, i + 1, local, peer))
            timeouts = 0
        except Exception as e:
            r = outcome(e)
            timeouts = timeouts + 1 if r == "timeout" else 0
            print("%s %d %s" % (label, i + 1, r))
        sys.stdout.flush()


def hold(args):
    conns = []
    for j in range(0, len(args), 5):
        label, src, dst, port, sport = args[j:j + 5]
        try:
            s = connect(src, dst, port, sport)
            local, peer = ask(s, "before")
            print("before %s %s %s" % (label, local, peer))
            conns.append((label, s))
        except Exception as e:
            print("before %s %s" % (label, outcome(e)))
    print("ready")
    sys.stdout.flush()
    sys.stdin.readline()
    for label, s in conns:
        try:
            local, peer = ask(s, "after")
            print("after %s %s %s" % (label, local, peer))
        except Exception as e:
            print("after %s %s" % (label, outcome(e)))
        s.close()
    sys.stdout.flush()


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "serve":
        serve(*args)
    elif cmd == "probe":
        for j in range(0, len(args), 6):
            probe(*args[j:j + 6])
    elif cmd == "hold":
        hold(args)
    else:
        sys.exit("usage: kp-net.py serve PORT | probe ... | hold ...")


if __name__ == "__main__":
    main()
