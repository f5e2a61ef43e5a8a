#!/bin/bash
# Rules the comparison mechanisms refuse, pinned, and accepted by the
# default one.  kmod (the module's own hooks, every kernel): everything
# ip_tables accepts.  netfilter (6.12): --tcp-option refused (no emitter).
# tc: state/conntrack refused too (at tc ingress conntrack has not run
# yet, so NEW and INVALID cannot be told apart); a clear message, and
# nothing changed.  The same iptables commands are accepted by ip_tables: run
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
# kmod (the default): nothing here is refused; --tcp-option has no
# emitter, so its hook is walked by the module with the kernel's xt_tcpudp
EBPF_MODPARAMS= use_ebpfilter
for rule in "${RULES[@]}"; do
	# shellcheck disable=SC2086 # the rule's words
	$IPT -A INPUT $rule -j ACCEPT || fail "kmod: $rule refused"
	$IPT -D INPUT $rule -j ACCEPT || fail "kmod: $rule not deleted"
	echo "kmod accepted: $rule"
done
modprobe -r ebpfilter || fail rmmod
assert_nothing_left

# The mechanisms kept for comparison refuse what they cannot enforce,
# with a clear message and nothing changed.
mechs=tc
# the kernel's config: /boot's (installed kernels) or its module tree's
# (the chroot kernels of mk/kernels.conf: 7.3 has no /boot/config-*)
kconfig=/boot/config-$KVER
[ -r "$kconfig" ] || kconfig=/lib/modules/$KVER/config
[ -r "$kconfig" ] || fail "no kernel config for $KVER"
grep -q '^CONFIG_NETFILTER_BPF_LINK=y' "$kconfig" && mechs="netfilter tc"
for m in $mechs; do
	EBPF_MODPARAMS="mechanism=$m" use_ebpfilter
	$IPT -A INPUT -p tcp --dport 22 -j ACCEPT || fail "$m: plain rule"
	before=$($IPT -S)
	dmesg_mark
	for rule in "${RULES[@]:0:3}"; do
		if [ $m = netfilter ]; then
			$IPT -A INPUT $rule -j ACCEPT || fail "$m: $rule refused"
			$IPT -D INPUT $rule -j ACCEPT || fail "$m: $rule not deleted"
			echo "$m accepted: $rule"
		else
			out=$($IPT -A INPUT $rule -j ACCEPT 2>&1) && fail "$rule accepted on tc hooks"
			echo "$m refused: $rule: $out"
			echo "$out" | grep -q "Operation not supported" || fail "unexpected error: $out"
		fi
	done
	out=$($IPT -A INPUT ${RULES[3]} -j DROP 2>&1) && fail "$m: --tcp-option accepted"
	echo "$m refused: --tcp-option: $out"
	echo "$out" | grep -qE "Operation not supported|No chain/target/match" || fail "unexpected error: $out"
	[ "$($IPT -S)" = "$before" ] || fail "$m: table changed"
	# only filter on the comparison mechanisms: no other table is made
	for t in nat mangle raw security; do
		out=$(build/tests/sockopt-req info $t)
		echo "$m: GET_INFO $t: $out"
		[ "$out" = "err ENOENT 2" ] || fail "$m: table $t: $out"
	done
	out=$(cat /proc/net/ip_tables_names)
	[ "$out" = filter ] || fail "$m: tables listed: $out"
	if [ $m = tc ]; then
		dmesg_since_mark | grep "ebpfilter-umh" | head -n 3
		dmesg_since_mark | grep -qi "conntrack\|state" || fail "no dmesg line naming the refused match"
	fi
	modprobe -r ebpfilter || fail rmmod
	assert_nothing_left
done
