#!/bin/bash
# Rules ebpfilter refuses, pinned.  state/conntrack rules: enforced where the kernel gives BPF programs the
# connection-tracking state (netfilter BPF programs, 6.12); refused with a
# clear message, and nothing changed, where it does not (tc hooks, 6.1:
# at tc ingress conntrack has not run yet, so NEW and INVALID cannot be
# told apart).  The same iptables commands are accepted by ip_tables: run
# first under ip_tables in this guest, so a refusal here is ebpfilter's.
. tests/guest/ipt-lib.sh
RULES=("-m state --state NEW" "-m conntrack --ctstate ESTABLISHED,RELATED"
	"-m conntrack ! --ctstate INVALID" "-p tcp --tcp-option 2")
use_ip_tables
for rule in "${RULES[@]}"; do
	# shellcheck disable=SC2086 # the rule's words
	$IPT -A INPUT $rule -j ACCEPT || fail "ip_tables refused: $rule"
	$IPT -D INPUT $rule -j ACCEPT || fail "ip_tables: cannot delete: $rule"
	echo "ip_tables accepted: $rule"
done
leave_ip_tables
use_ebpfilter
$IPT -A INPUT -p tcp --dport 22 -j ACCEPT || fail "plain rule"
before=$($IPT -S)
dmesg_mark
for rule in "${RULES[@]:0:3}"; do
	if ebpf_has_ct; then
		$IPT -A INPUT $rule -j ACCEPT || fail "$rule refused"
		$IPT -D INPUT $rule -j ACCEPT || fail "$rule not deleted"
		echo "accepted: $rule"
	else
		out=$($IPT -A INPUT $rule -j ACCEPT 2>&1) && fail "$rule accepted on tc hooks"
		echo "refused: $rule: $out"
		echo "$out" | grep -q "Operation not supported" || fail "unexpected error: $out"
	fi
done
# --tcp-option is not enforced by the code generator: refused everywhere.
out=$($IPT -A INPUT ${RULES[3]} -j DROP 2>&1) && fail "--tcp-option accepted"
echo "refused: --tcp-option: $out"
echo "$out" | grep -q "Operation not supported" || fail "unexpected error: $out"
[ "$($IPT -S)" = "$before" ] || fail "table changed"
if ! ebpf_has_ct; then
	dmesg_since_mark | grep "ebpfilter-umh" | head -n 3
	dmesg_since_mark | grep -qi "conntrack\|state" || fail "no dmesg line naming the refused match"
fi
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
