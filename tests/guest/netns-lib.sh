# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared by tests/guest/netns-*.sh (sourced; inside a QEMU guest only):
# per-network-namespace tables (issue 17), differential against the
# kernel's ip_tables in the same boot.  Each test runs its sequence once
# under ip_tables (the reference: ns_expect checks it shows ip_tables'
# documented behaviour, else the test fails as a broken reference), then
# under ebpfilter, and compares the two runs' transcripts part by part
# (ns_compare).  NETNS_BOTH_IP_TABLES=1 (run-guest --env) runs ip_tables
# twice instead: the check that the comparisons are deterministic, i.e.
# that each test can pass; ebpfilter-only parts are then skipped.
. tests/verdict/lib.sh

NS_OUT=$IPT_OUT/netns
mkdir -p "$NS_OUT"
# the transcripts end up in the run directory (run-guest keeps it on failure)
trap 'cp -r "$NS_OUT" /run/run-guest/ 2>/dev/null' EXIT
ENGINE=

ns_first_engine() {
	use_ip_tables
	ENGINE=ip_tables
}

# ns_second_engine: every namespace of the first run must be gone
ns_second_engine() {
	leave_ip_tables
	if [ "${NETNS_BOTH_IP_TABLES:-}" = 1 ]; then
		note "NETNS_BOTH_IP_TABLES=1: the second run is ip_tables again, not ebpfilter"
		use_ip_tables
	else
		use_ebpfilter
	fi
	ENGINE=ebpfilter	# the run compared with the reference
}

ns_is_reference() { [ "$ENGINE" = ip_tables ]; }

# The second run really is ebpfilter (its own parameters, its helper).
ns_real_ebpfilter() {
	[ "$ENGINE" = ebpfilter ] && [ "${NETNS_BOTH_IP_TABLES:-}" != 1 ]
}

# ns_expect WHAT WANT GOT: in the reference run, ip_tables must show WANT
ns_expect() {
	ns_is_reference || return 0
	[ "$2" = "$3" ] ||
		fail "under ip_tables, $1: expected '$2', got '$3' (the reference run is wrong)"
}

# ns_expect_match WHAT REGEX GOT: the same with an extended regex
ns_expect_match() {
	ns_is_reference || return 0
	printf '%s\n' "$3" | grep -Eq -- "$2" ||
		fail "under ip_tables, $1: expected /$2/, got '$3' (the reference run is wrong)"
}

# Where a run's transcript parts go: $NS_OUT/PART.$ENGINE
ns_file() { echo "$NS_OUT/$1.$ENGINE"; }

# ns_log PART TEXT...: append a line to a part's transcript
ns_log() {
	local p=$1
	shift
	printf '%s\n' "$*" >>"$(ns_file "$p")"
}

# ns_run PART [ip netns exec NS | unshare ... | env] CMD...: run a command,
# record "$ CMD", its output (stdout and stderr, save timestamps stripped)
# and its exit status in PART's transcript; the command's status returned
ns_run() {
	local p=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	{
		printf '$ %s\n' "$*"
		[ -n "$out" ] && printf '%s\n' "$out" | ipt_normalize
		printf '[exit %d]\n' "$rc"
	} >>"$(ns_file "$p")"
	return $rc
}

# ns_compare PART: the reference's and ebpfilter's transcripts of PART must
# be identical; PASS/FAIL PART counted
ns_passed=0 ns_failed=0
ns_compare() {
	local a="$NS_OUT/$1.ip_tables" b="$NS_OUT/$1.ebpfilter"
	[ -e "$a" ] || fail "no reference transcript of $1"
	if [ -e "$b" ] && diff -u "$a" "$b" >"$NS_OUT/$1.diff"; then
		ns_passed=$((ns_passed + 1))
		echo "PASS $1"
	else
		ns_failed=$((ns_failed + 1))
		echo "FAIL $1"
		[ -e "$b" ] || echo "    (no ebpfilter transcript)"
		head -n 60 "$NS_OUT/$1.diff" 2>/dev/null | sed 's/^/    /'
	fi
}

# ns_check PART CONDITION-TEXT STATUS: an ebpfilter-only assertion (its
# parameters, its helper), counted as a part
ns_check() {
	if [ "$3" = 0 ]; then
		ns_passed=$((ns_passed + 1))
		echo "PASS $1"
	else
		ns_failed=$((ns_failed + 1))
		echo "FAIL $1: $2"
	fi
}

# ns_show PART: print a reference transcript (for the log)
ns_show() {
	echo "--- reference transcript $1:"
	sed 's/^/    /' "$NS_OUT/$1.ip_tables"
}

# ns_finish: the tally; copies the transcripts to the run directory
ns_finish() {
	echo "$ns_passed passed, $ns_failed failed"
	[ "$ns_failed" = 0 ] || exit 1
	exit 0
}

# ns_names [NETNS]: /proc/net/ip_tables_names of NETNS (default: this one),
# one line, "(none)" when empty, "(no file)" when missing
ns_names() {
	local out
	if [ -n "${1:-}" ]; then
		out=$(ip netns exec "$1" cat /proc/net/ip_tables_names 2>&1) || out="(no file) $out"
	else
		out=$(cat /proc/net/ip_tables_names 2>&1) || out="(no file) $out"
	fi
	[ -n "$out" ] || out="(none)"
	echo $out
}

# ns_probe NAME NETNS PROTO SRC DST DPORT: one probe
# (tests/verdict/lib.sh's vprobe_once), its file in $NS_OUT
ns_probe() { vprobe_once "$NS_OUT" "$1" "$2" "$3" "$4" "$5" "$6"; }

# ns_link NS ROOTDEV ROOTADDR NSADDR: namespace NS with eth0 NSADDR/24,
# a veth to ROOTDEV ROOTADDR/24 in this namespace, a default route back,
# no IPv6 (no stray packets in the counters), one SYN try
ns_link() {
	ip netns add "$1" &&
	ip link add "$2" type veth peer name eth0 netns "$1" &&
	ip addr add "$3/24" dev "$2" && ip link set "$2" up &&
	ip -n "$1" addr add "$4/24" dev eth0 &&
	ip -n "$1" link set eth0 up && ip -n "$1" link set lo up &&
	ip -n "$1" route add default via "$3" &&
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 net.ipv4.tcp_syn_retries=1 \
		net.ipv4.tcp_synack_retries=0 \
		net.ipv4.ip_local_port_range="50000 60999"
}

# TCP segments retransmitted so far in these namespaces ("root": this one)
ns_retrans() {
	local ns n=0 r
	for ns in "$@"; do
		if [ "$ns" = root ]; then set --; else set -- ip netns exec "$ns"; fi
		r=$("$@" awk '$1 == "Tcp:" { if (!f) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") f = i; next } print $f }' /proc/net/snmp)
		n=$((n + r))
	done
	echo $n
}

# Live network namespaces in the kernel: objects of the net_namespace
# slab (a namespace the module still holds a reference to stays there);
# empty when the cache is not listed (merged into another)
ns_netns_objs() {
	awk '$1 == "net_namespace" { print $2 }' /proc/slabinfo
}

# ns_until SECS CMD...: CMD every 0.3 s until it succeeds, for at most SECS
# seconds of wall time (wait_for counts tries, and a try of iptables in a
# TCG guest takes longer than its 0.1 s sleep); 1 on timeout
ns_until() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge $end ] && return 1
		sleep 0.3
	done
}

# The helper's VmRSS in kB and its open files
helper_rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
helper_fds() { ls "/proc/$1/fd" | wc -l; }

# ns_param NAME: ebpfilter's module parameter NAME ("(missing)" if absent)
ns_param() {
	cat "/sys/module/ebpfilter/parameters/$1" 2>/dev/null || echo "(missing)"
}

# ns_set_param NAME VALUE: 0 when written and read back
ns_set_param() {
	{ echo "$2" >"/sys/module/ebpfilter/parameters/$1"; } 2>/dev/null &&
		[ "$(ns_param "$1")" = "$2" ]
}
