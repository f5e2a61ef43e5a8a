#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A classified run's hotdrop on the kmod mechanism (umh/cgen/classify.c,
# "Hotdrop"): its maps hold one element per tcp/udp rule (no hotdrop
# twins, issue 17's memory), and a packet whose tcp/udp header is missing
# is handed to the module's walk at the run's first rule.  Differential:
# the same rules and crafted packets (truncated tcp and udp headers, whole
# ones; no fragments: local delivery reassembles them before INPUT, the
# host suite's cghost_cls_hd.h has those) under ip_tables and under ebpfilter in
# this guest: which packets were delivered (Ip InDelivers) and every
# rule's counters must be the same.  INPUT is chain-less (main hands the
# packet over itself); USR, reached by a jump, has a kernel rule (the
# function's walk tail, the jump pushed on the record).
. tests/guest/ipt-lib.sh

ip link set lo up
for a in 3.3.3.1 3.3.3.2 3.3.3.3 3.3.3.4 3.3.3.5 3.3.3.6 3.3.3.7 3.3.3.9 4.4.4.1 4.4.4.3 4.4.4.9; do
	ip addr add $a/32 dev lo || fail "ip addr add $a"
done

D=$(mktemp -d)
RULES=$D/rules
# run DST_PREFIX CHAIN: 13 rules a classifier takes (the first tests only
# the destination; 6 tcp and 6 udp rules)
run() {
	echo "-A $2 -d $1.9 -j DROP"
	for i in 1 2 3 4 5 6; do
		echo "-A $2 -d $1.$i -p tcp -m tcp --dport 80 -j $([ $i = 4 ] && echo DROP || echo ACCEPT)"
	done
	for i in 1 2 3 4 5 6; do
		echo "-A $2 -d $1.$i -p udp -m udp --dport 53 -j $([ $i = 3 ] && echo DROP || echo ACCEPT)"
	done
}
{
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo ':FORWARD ACCEPT [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	echo ':USR - [0:0]'
	echo '-A INPUT -d 4.4.4.0/24 -j USR'
	run 3.3.3 INPUT
	run 4.4.4 USR
	echo '-A USR -p icmp -j LOG --log-prefix "hd "'
	echo COMMIT
} >"$RULES"

# send.py NAME DST PROTO L4BYTES FRAGOFF8: one IPv4 packet from 127.0.0.1
# (a raw socket: the kernel fills in the total length, so the transport
# header has L4BYTES bytes); prints NAME and whether it was delivered
cat >$D/send.py <<'EOF'
import socket, struct, sys, time
def delivers():
    rows = [l.split() for l in open("/proc/net/snmp") if l.startswith("Ip:")]
    return int(rows[1][rows[0].index("InDelivers")])
name, dst, proto, l4n, frag = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
p = {"tcp": 6, "udp": 17}[proto]
if p == 6:
    l4 = struct.pack("!HHIIBBHHH", 40000, 80, 1, 0, 0x50, 0x02, 1024, 0, 0)
else:
    l4 = struct.pack("!HHHH", 40000, 53, 8 + 8, 0) + b"x" * 8
l4 = (l4 + b"\0" * 64)[:l4n]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 0, 0x1234, frag, 64, p, 0,
                 socket.inet_aton("127.0.0.1"), socket.inet_aton(dst))
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
before = delivers()
s.sendto(ip + l4, (dst, 0))
time.sleep(0.2)
print(name, "delivered" if delivers() > before else "dropped")
EOF

# NAME DST PROTO L4BYTES FRAGOFF (in 8-byte units)
PROBES="
tcp-short-rule0 3.3.3.9 tcp 10 0
tcp-short-hit 3.3.3.3 tcp 10 0
tcp-short-drop-rule 3.3.3.4 tcp 10 0
tcp-short-miss 3.3.3.7 tcp 10 0
udp-short-hit 3.3.3.6 udp 6 0
udp-whole-drop 3.3.3.3 udp 16 0
udp-whole-accept 3.3.3.2 udp 16 0
tcp-whole-drop 3.3.3.4 tcp 20 0
usr-tcp-short-rule0 4.4.4.9 tcp 10 0
usr-tcp-short-hit 4.4.4.3 tcp 10 0
usr-udp-short-hit 4.4.4.1 udp 4 0
usr-tcp-whole 4.4.4.3 tcp 20 0
"

# session BACKEND: the rules, every probe, the counters
session() {
	iptables-legacy-restore <"$RULES" || fail "$1: restore"
	printf '%s\n' "$PROBES" | while read -r n d p l f; do
		[ -n "$n" ] || continue
		python3 $D/send.py "$n" "$d" "$p" "$l" "$f" || echo "$n error"
	done
	$IPT -L -v -x -n | awk '{ print $1, $2, $3 }'
}

use_ip_tables
session ip_tables >"$D/ip_tables.out" || fail "ip_tables session"
leave_ip_tables
use_ebpfilter
session ebpfilter >"$D/ebpfilter.out" || fail "ebpfilter session"
cat "$D/ebpfilter.out"
diff -u "$D/ip_tables.out" "$D/ebpfilter.out" ||
	fail "ebpfilter's deliveries or counters differ from ip_tables'"
# the shape under test, not a hook walked whole: INPUT compiled, its
# classifiers one element per rule: 12 tcp/udp rules in one group (24
# with hotdrop twins)
BPFTOOL=${BPFTOOL:-/usr/sbin/bpftool}
[ "$(bpf_count prog 'name ebpf_input')" -ge 1 ] || fail "INPUT not compiled"
cls=$($BPFTOOL -j map show | python3 -c 'import json, sys
print(" ".join(sorted(str(m["max_entries"]) for m in json.load(sys.stdin)
                      if m.get("name") == "ebpf_cls")))') || fail "bpftool map show"
note "classifier maps' max_entries: $cls"
case " $cls " in *" 12 "*) ;; *) fail "no classifier of the run's 12 tcp/udp rules: $cls" ;; esac
case " $cls " in *" 24 "*) fail "a classifier with hotdrop twins: $cls" ;; esac
[ "$(bpf_count map 'name ebpf_resume')" -ge 1 ] || fail "no resume map"
grep -q ' dropped$' "$D/ebpfilter.out" || fail "no probe was dropped"
grep -q ' delivered$' "$D/ebpfilter.out" || fail "no probe was delivered"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
