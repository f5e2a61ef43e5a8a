#!/bin/bash
# Requests from other network namespaces never read or change the initial
# namespace's tables: they are refused with ENOENT ("Table does not
# exist") and a dmesg line; callers without CAP_NET_ADMIN over the initial
# namespace get EPERM, as with ip_tables.
. tests/guest/ipt-lib.sh
use_ebpfilter
$IPT -A INPUT -s 192.0.2.1 -j DROP || fail "rule in the initial namespace"
before=$($IPT -S)
dmesg_mark

note "unshare -n (root, new network namespace)"
[ -z "$(unshare -n cat /proc/net/ip_tables_names)" ] || fail "other netns lists tables"
[ -z "$(unshare -n iptables-legacy-save)" ] || fail "other netns dumps tables"
out=$(unshare -n $IPT -S 2>&1) && fail "listed tables from another netns: $out"
echo "$out"
echo "$out" | grep -q "Table does not exist" || fail "unexpected error: $out"
echo "$out" | grep -q modprobe && fail "iptables tried to load ip_tables"
unshare -n $IPT -A INPUT -j ACCEPT 2>/dev/null && fail "changed tables from another netns"
unshare -n $IPT -F 2>/dev/null && fail "flushed from another netns"

note "unshare -U -n -r (container-like: own user and network namespace)"
out=$(unshare -U -n -r $IPT -S 2>&1) && fail "listed tables from a container: $out"
echo "$out"
echo "$out" | grep -q "Table does not exist" || fail "unexpected error: $out"
unshare -U -n -r $IPT -P INPUT DROP 2>/dev/null && fail "policy changed from a container"

note "unshare -U -r (own user namespace, initial network namespace)"
out=$(unshare -U -r $IPT -S 2>&1) && fail "listed tables without CAP_NET_ADMIN: $out"
echo "$out"
echo "$out" | grep -qi "permission denied" || fail "not EPERM: $out"

# Revision queries describe extensions, not tables: answered everywhere.
[ "$(unshare -n "$SOCKOPT_REQ" rev-match tcp)" = "ok 0" ] ||
	fail "revision query refused in another netns"

after=$($IPT -S)
[ "$before" = "$after" ] || fail "initial namespace's tables changed: $after"
dmesg_has "request from a network namespace other than the initial one refused" ||
	fail "no dmesg line for the refusal"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
