#!/bin/bash
# Counters survive a helper crash: what the BPF programs counted since the
# last change is still there after kill -9 and the restart.
# run-all-tier: smoke
. tests/guest/ipt-lib.sh
use_ebpfilter
ip link set lo up
$IPT -A OUTPUT -o lo -p icmp -j ACCEPT || fail rule
busybox ping -c 3 127.0.0.1 >/dev/null || fail "ping"
before=$($IPT -L OUTPUT -v -n -x | awk '$3 == "ACCEPT" { print $1 }')
[ "${before:-0}" -ge 3 ] || fail "rule counted ${before:-0} packets"
pid=$(helper_pids)
kill -9 "$pid"
after=$($IPT -L OUTPUT -v -n -x | awk '$3 == "ACCEPT" { print $1 }')
assert_new_helper "$pid"
echo "packets before kill -9: $before; after the restart: $after"
[ "$after" = "$before" ] || fail "counters lost in the restart"
busybox ping -c 2 127.0.0.1 >/dev/null || fail "ping after restart"
again=$($IPT -L OUTPUT -v -n -x | awk '$3 == "ACCEPT" { print $1 }')
[ "$again" -ge $((before + 2)) ] || fail "not counting after the restart: $again"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
