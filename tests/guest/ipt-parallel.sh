#!/bin/bash
# Concurrency: 20 iptables-legacy -w -A at once against ebpfilter; all
# succeed and all 20 rules are there afterwards (libiptc's read-modify-
# write under the xtables lock, with EAGAIN retries, must lose nothing).
. tests/guest/ipt-lib.sh

use_ebpfilter
ipt_reset || fail "reset"
pids=()
for i in $(seq 1 20); do
	$IPT -w -A INPUT -s 10.9.0.$i/32 -p tcp --dport $((1000 + i)) -j ACCEPT &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
[ $rc = 0 ] || fail "an iptables-legacy -w -A failed"
for i in $(seq 1 20); do
	$IPT -C INPUT -s 10.9.0.$i/32 -p tcp --dport $((1000 + i)) -j ACCEPT ||
		fail "rule $i missing"
done
n=$($IPT -S INPUT | grep -c -- '-A INPUT')
[ "$n" = 20 ] || fail "$n rules instead of 20"
# and 20 parallel deletions
for i in $(seq 1 20); do
	$IPT -w -D INPUT -s 10.9.0.$i/32 -p tcp --dport $((1000 + i)) -j ACCEPT &
done
wait
n=$($IPT -S INPUT | grep -c -- '-A INPUT')
[ "$n" = 0 ] || fail "$n rules left after parallel deletes"
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
echo "PASS ipt-parallel: 20 parallel appends, 20 parallel deletes"
