#!/bin/bash
# state/conntrack rules see real connection-tracking state (kmod: the
# module's hooks run after conntrack's, on every kernel).  As with
# ip_tables, conntrack is enabled only while a rule needs it, and before
# that rule is live: by the kernel's own check of the state/conntrack
# match (xt_state/xt_conntrack take the namespace's conntrack reference,
# and their instance holds a reference on their module until the rule is
# gone).  (The tc mechanism refuses such rules: ipt-refusals.sh.)
. tests/guest/ipt-lib.sh
ebpf_has_ct || skip "tc hooks refuse state/conntrack rules by design (README, Differences from ip_tables; ipt-refusals.sh checks the refusal)"
use_ebpfilter
dmesg_mark
ip link set lo up
python3 -m http.server 9001 --bind 127.0.0.1 >/dev/null 2>&1 &
srv=$!
python3 -m http.server 9002 --bind 127.0.0.1 >/dev/null 2>&1 &
srv2=$!
trap 'kill $srv $srv2 2>/dev/null' EXIT
connects() { timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
wait_for 60 connects 9001 || fail "no connection before any rule"
wait_for 60 connects 9002 || fail "no server on 9002"

# A first state rule turns conntrack on (connections opened before that
# are picked up mid-stream as NEW, as with ip_tables).
$IPT -A INPUT -p udp --dport 1 -m state --state INVALID -j DROP || fail "state rule refused"
refs() { cat "/sys/module/$1/refcnt" 2>/dev/null || echo 0; }
# (iptables-legacy 1.8 sends -m state as xt_conntrack's match where the
# kernel has it: count both modules' instances)
[ $(($(refs xt_state) + $(refs xt_conntrack))) -ge 1 ] ||
	fail "no state/conntrack instance holds conntrack"
[ -e /proc/sys/net/netfilter/nf_conntrack_count ] || fail "conntrack not loaded"
# NEW connections to 9001 are dropped; established ones keep working.
exec 4<>/dev/tcp/127.0.0.1/9001 || fail "cannot open the long-lived connection"
$IPT -A INPUT -p tcp --dport 9001 -m conntrack --ctstate NEW -j DROP || fail "ctstate rule refused"
$IPT -A INPUT -p tcp --dport 9001 -m state --state ESTABLISHED -j ACCEPT || fail "state rule refused"
connects 9001 && fail "a NEW connection to 9001 passed"
[ "$(cat /proc/sys/net/netfilter/nf_conntrack_count)" -ge 1 ] ||
	fail "conntrack tracks nothing"
connects 9002 || fail "9002 blocked"
printf 'GET / HTTP/1.0\r\n\r\n' >&4 || fail "write on the established connection"
timeout 10 head -c 15 <&4 | grep -q "HTTP/1.0 200" || fail "established connection broken"
exec 4<&-
$IPT -L INPUT -v -n -x
pk=$($IPT -L INPUT -v -n -x | awk '/ctstate NEW/ { print $1 }')
[ "${pk:-0}" -ge 1 ] || fail "NEW rule counted $pk packets"
pe=$($IPT -L INPUT -v -n -x | awk '/state ESTABLISHED/ { print $1 }')
[ "${pe:-0}" -ge 1 ] || fail "ESTABLISHED rule counted $pe packets"

# Rules gone: conntrack is released again.
$IPT -F INPUT || fail flush
[ "$(refs xt_state)" = 0 ] && [ "$(refs xt_conntrack)" = 0 ] ||
	fail "state/conntrack instances kept after the flush (xt_state $(refs xt_state), xt_conntrack $(refs xt_conntrack))"
connects 9001 || fail "9001 still blocked after flush"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
dmesg_since_mark | grep "ebpfilter"
