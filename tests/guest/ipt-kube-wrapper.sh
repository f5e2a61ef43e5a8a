#!/bin/bash
# The backend choice of kubernetes-sigs/iptables-wrappers: a container's
# iptables wrapper decides between iptables-legacy and iptables-nft by what
# the host's tables hold.  After a kube-proxy-like restore into nat and
# filter (tests/ipt/rules/kube-nat-filter.v4), and again after kubelet's
# hint chains in mangle, its detection must pick "legacy" under ebpfilter
# as under ip_tables, from the same counts.  The nft side holds no rules:
# iptables-nft-save must run (else the test says so and requires only
# legacy lines > 0).  The legacy counts need every table in
# /proc/net/ip_tables_names: iptables-legacy-save without -t saves only
# the tables listed there.
# run-all-cost: 75
. tests/guest/ipt-lib.sh

# kubernetes-sigs/iptables-wrappers, iptables-wrapper-installer.sh at commit
# 70d7897 ("Try to resolve nft/legacy based on KUBE-IPTABLES-HINT /
# KUBE-KUBELET-CANARY first"), lines 107-130: the wrapper's detection as
# the installer wrote it (its last shell version; 680003b then made it a
# Go program, internal/iptables/detect.go, with the same order of checks).
# Copied verbatim but for the heredoc's \$ escapes, the indentation and
# the counts echoed at the end.
wrapper_detect() {
	nft_kubelet_rules=$( (iptables-nft-save -t mangle || true; ip6tables-nft-save -t mangle || true) 2>/dev/null | grep -E '^:(KUBE-IPTABLES-HINT|KUBE-KUBELET-CANARY)' | wc -l)
	if [ "${nft_kubelet_rules}" -ne 0 ]; then
	    mode=nft
	else
	    # Check for kubernetes 1.17-or-later with iptables-legacy. We
	    # can't pass "-t mangle" to iptables-legacy-save because it would
	    # cause the kernel to create that table if it didn't already
	    # exist, which we don't want. So we have to grab all the rules
	    legacy_kubelet_rules=$( (iptables-legacy-save || true; ip6tables-legacy-save || true) 2>/dev/null | grep -E '^:(KUBE-IPTABLES-HINT|KUBE-KUBELET-CANARY)' | wc -l)
	    if [ "${legacy_kubelet_rules}" -ne 0 ]; then
	        mode=legacy
	    else
	        # With older kubernetes releases there may not be any _specific_
	        # rules we can look for, but we assume that some non-containerized process
	        # (possibly kubelet) will have created _some_ iptables rules.
	        num_legacy_lines=$( (iptables-legacy-save || true; ip6tables-legacy-save || true) 2>/dev/null | grep '^-' | wc -l)
	        num_nft_lines=$( (iptables-nft-save || true; ip6tables-nft-save || true) 2>/dev/null | grep '^-' | wc -l)
	        if [ "${num_legacy_lines}" -gt "${num_nft_lines}" ]; then
	            mode=legacy
	        else
	            mode=nft
	        fi
	    fi
	fi
	echo "mode=$mode nft_kubelet_rules=$nft_kubelet_rules" \
		"legacy_kubelet_rules=${legacy_kubelet_rules:--}" \
		"num_legacy_lines=${num_legacy_lines:--}" \
		"num_nft_lines=${num_nft_lines:--}"
}

# The nft side: does iptables-nft-save run at all in this guest?
nft_ok=1
if ! out=$(iptables-nft-save 2>&1); then
	nft_ok=0
	note "iptables-nft-save cannot run here ($out): only legacy lines > 0 is required"
elif [ -n "$(printf '%s\n' "$out" | grep '^-')" ]; then
	fail "the nft side has rules: $out"
fi

# One backend: the two scenarios, each detection's line and the legacy
# save it counted.
run_backend() {
	local b=$1
	(
		echo "# older kubernetes: kube-proxy's nat and filter, no hint"
		$IPT-restore <tests/ipt/rules/kube-nat-filter.v4 || echo "restore failed: $?"
		cat /proc/net/ip_tables_names
		unset nft_kubelet_rules legacy_kubelet_rules num_legacy_lines num_nft_lines
		wrapper_detect
		iptables-legacy-save | ipt_normalize
		echo "# kubernetes 1.17+: kubelet's hint chains in mangle"
		printf '*mangle\n:KUBE-IPTABLES-HINT - [0:0]\n:KUBE-KUBELET-CANARY - [0:0]\nCOMMIT\n' |
			$IPT-restore --noflush || echo "restore failed: $?"
		cat /proc/net/ip_tables_names
		unset nft_kubelet_rules legacy_kubelet_rules num_legacy_lines num_nft_lines
		wrapper_detect
		iptables-legacy-save | ipt_normalize
	) >"$IPT_OUT/kube.$b" 2>&1
	cat "$IPT_OUT/kube.$b"
}

# Every detection picked legacy, from rules it counted.
check_legacy() {
	local b=$1 line
	[ "$(grep -c '^mode=' "$IPT_OUT/kube.$b")" = 2 ] ||
		fail "$b: the detection did not run twice"
	while read -r line; do
		case $line in
		"mode=legacy "*) ;;
		*) fail "$b: the wrapper would pick nft: $line" ;;
		esac
		[ $nft_ok = 1 ] || case $line in
		*" num_legacy_lines=-"* | *" num_legacy_lines=0"*)
			fail "$b: no legacy lines counted: $line" ;;
		esac
	done < <(grep '^mode=' "$IPT_OUT/kube.$b")
	grep -q ' legacy_kubelet_rules=0 num_legacy_lines=[1-9]' "$IPT_OUT/kube.$b" ||
		fail "$b: the first detection did not count kube-proxy's rules"
	grep -q ' legacy_kubelet_rules=2 num_legacy_lines=-' "$IPT_OUT/kube.$b" ||
		fail "$b: the second detection did not find kubelet's two hint chains"
}

use_ip_tables
# iptable_filter creates its table on first use: filter first, as ebpfilter
# has it from modprobe on (the order of /proc/net/ip_tables_names)
$IPT -w -L -n >/dev/null || fail "ip_tables: no filter table"
echo "--- ip_tables"
run_backend ip_tables
check_legacy ip_tables	# else the reference itself is broken
leave_ip_tables
use_ebpfilter
echo "--- ebpfilter"
run_backend ebpfilter
diff -u "$IPT_OUT/kube.ip_tables" "$IPT_OUT/kube.ebpfilter" ||
	fail "ebpfilter's tables give the wrapper other counts or saves (diff above)"
check_legacy ebpfilter
for t in nat mangle filter; do
	$IPT -w -t $t -F && $IPT -w -t $t -X || fail "ebpfilter: cannot empty $t"
done
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
echo "PASS ipt-kube-wrapper: legacy picked on both backends"
