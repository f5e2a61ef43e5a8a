# SPDX-License-Identifier: GPL-2.0
# Shared by tests/guest/fw-*.sh (sourced; inside a QEMU guest only): real
# firewall front-ends (Debian's ufw and fail2ban, staged on the host by
# tests/tools/stage-fw-pkgs, never installed or run there) driven once
# under the kernel's ip_tables and once under ebpfilter, in the same boot.
. tests/verdict/lib.sh

FW_STAGE=${FW_STAGE:-build/fw-pkgs/root}
# The families the test's front-end configures: "4 6" (fw-ufw.sh,
# fw-fail2ban.sh) makes the reference ip_tables and ip6_tables and loads
# ebpfilter with ipv6=1, so that it serves both; "4" leaves IPv6 alone.
FW_FAMILIES=${FW_FAMILIES:-4}
FW_OUT=$IPT_OUT/fw
mkdir -p "$FW_OUT"

# fw_tier NAME: `make check` runs each real firewall on one Debian 12
# kernel: ufw on the core tier's (6.1), docker, fail2ban and kube-proxy on
# the reduced tier's (6.12); `make check-all` runs all four on every
# kernel.  (2026-12-06: CI took 63 minutes with all four on both.)  Skips
# (exit 77) where NAME does not run.
fw_tier() {
	case $1 in
	ufw)
		[ "${EBPF_TIER:-full}" != reduced ] ||
			skip "reduced tier: ufw runs on the core tier's kernel (make check-all: every kernel)" ;;
	*)
		! tier_core ||
			skip "core tier: $1 runs on the reduced tier's kernel (make check-all: every kernel)" ;;
	esac
}

fw_staged() {
	[ -s "${FW_STAGE%/root}/versions" ] ||
		fail "no staged ufw/fail2ban in ${FW_STAGE%/root} (tests/tools/stage-fw-pkgs on the host; run-all does it)"
	note "staged: $(tr '\n' ' ' <"${FW_STAGE%/root}/versions")"
}

# The front-ends call plain `iptables`, `iptables-restore`, ... by
# absolute path (ufw: /usr/sbin, its common.iptables_dir; ufw-init and
# fail2ban: a PATH of their own), which on Debian are alternatives pointing
# at the nft variant.  Point them at the -legacy tools, which speak the
# sockopts that ip_tables and ebpfilter serve: /etc/alternatives is on the
# guest's throwaway overlay (nothing reaches the host).  ip6tables too:
# ufw's default IPV6=yes runs it, fail2ban's inet6 family too (ip6_tables,
# then ebpfilter with ipv6=1, serves it: FW_FAMILIES).
fw_legacy_alternatives() {
	local t
	for t in iptables iptables-restore iptables-save ip6tables ip6tables-restore ip6tables-save; do
		ln -sfn "/usr/sbin/${t%%-*}-legacy${t#${t%%-*}}" "/etc/alternatives/$t" ||
			fail "alternative $t"
	done
	iptables -V | grep -q legacy || fail "iptables is not the legacy one: $(iptables -V)"
	iptables-restore -V 2>&1 | grep -q legacy || fail "iptables-restore is not the legacy one"
}

# fw_probe NAME NETNS PROTO SRC DST DPORT [SPORT]: one probe
# (tests/verdict/lib.sh's vprobe_once), its file in $FW_OUT
fw_probe() { vprobe_once "$FW_OUT" "$@"; }

# fw_probe6 NAME NETNS PROTO SRC DST DPORT: fw_probe over IPv6, read
# "icmp6-unreach" when NETNS received an ICMPv6 destination unreachable
# during it.  A REJECT's icmp6-port-unreachable answering a TCP SYN mostly
# leaves the connect pending past the probe's 800 ms ("timeout"), under
# ip6_tables as under ebpfilter; once, on a loaded host, it read "refused"
# (the SYN resent, a second error).  Most likely the first error arrives
# while connect() still holds the socket (veth delivers it in the same
# softirq) and tcp_v6_err keeps it as a soft error; not pinned down.  The
# error's arrival does not depend on timing and tells a REJECT from a DROP.
fw_probe6() {
	local u0 r
	u0=$(fw_icmp6_unreach "$2")
	r=$(fw_probe "$@") || return 1
	[ "$(fw_icmp6_unreach "$2")" = "$u0" ] || r=icmp6-unreach
	echo "$r"
}
fw_icmp6_unreach() {	# NETNS: its Icmp6InDestUnreachs
	ip netns exec "$1" awk '$1 == "Icmp6InDestUnreachs" { print $2 }' /proc/net/snmp6
}

# fw_warmup [NETNS SRC DST DPORT]: before any rule, a TCP connect (default
# from c, 10.0.1.2, to 10.0.1.1:22) until one succeeds (at most three):
# neighbours resolved and listeners answering, so that no first probe of
# the reference run times out on ARP under a loaded host.
fw_warmup() {
	local i
	for i in 1 2 3; do
		[ "$(fw_probe warmup "${1:-c}" tcp "${2:-10.0.1.2}" "${3:-10.0.1.1}" "${4:-22}")" = ok ] && return 0
	done
	fail "the topology does not answer a connect from ${1:-c} to ${3:-10.0.1.1}:${4:-22} without rules"
}

# Kernel log lines written by LOG rules with PREFIX since the last mark,
# with what differs between two otherwise identical packets masked: the
# timestamp, the IP id, the source port, IPv6's flow label (hashed from
# the ports).  IN/OUT, MAC, SRC, DST, LEN, TOS/TC, TTL/HOPLIMIT, flags,
# PROTO, DPT, WINDOW, ... stay.
fw_log_lines() {
	dmesg_since_mark | grep -F -- "$1" |
		sed -E 's/^\[ *[0-9.]+\] //; s/ ID=[0-9]+/ ID=*/; s/ SPT=[0-9]+/ SPT=*/; s/ FLOWLBL=[0-9]+/ FLOWLBL=*/'
}

# fw_save [TABLE]: a save of TABLE (default filter) of the current family
# (ipt_family) without counters and timestamps (the policy counters are
# printed even without -c).
fw_save() {
	$IPT-save -t "${1:-filter}" 2>&1 | ipt_normalize | sed -E 's/ \[[0-9]+:[0-9]+\]$//'
	echo "[save exit ${PIPESTATUS[0]}]"
}

# fw_save6 [TABLE]: fw_save of IPv6 (ip6tables-legacy-save)
fw_save6() { (ipt_family 6 && fw_save "$@"); }

# fw_compare WHAT FILE-STEM: diff STEM.ip_tables STEM.ebpfilter; prints
# PASS/FAIL WHAT and counts it; 1 if they differ.
fw_passed=0 fw_failed=0
fw_compare() {
	if diff -u "$2.ip_tables" "$2.ebpfilter" >"$2.diff"; then
		fw_passed=$((fw_passed + 1))
		echo "PASS $1"
	else
		fw_failed=$((fw_failed + 1))
		echo "FAIL $1"
		head -n 40 "$2.diff" | sed 's/^/    /'
		return 1
	fi
}

# fw_expect WHAT WANT GOT: a sanity check of the ip_tables run itself (the
# reference must show the front-end's documented behaviour, else equal
# results under both engines would prove nothing)
fw_expect() {
	[ "$2" = "$3" ] || fail "under ip_tables, $1: expected '$2', got '$3' (the reference run is wrong)"
}

# fw_use_reference: the kernel's ip_tables (and ip6_tables when
# FW_FAMILIES has 6); the helpers are left on IPv4.
fw_use_reference() {
	local f
	for f in $FW_FAMILIES; do
		ipt_family "$f"
		use_ip_tables
	done
	ipt_family 4
}

# fw_leave_reference: empty and unload what fw_use_reference loaded (IPv6
# first: ebpfilter with ipv6=1 cannot load beside ip6_tables).
fw_leave_reference() {
	local f
	for f in $(echo "$FW_FAMILIES" | tr ' ' '\n' | sort -r); do
		ipt_family "$f"
		leave_ip_tables
	done
	ipt_family 4
}

# fw_second_engine: from the reference (ip_tables) to the engine under
# test, ebpfilter (ipv6=1 when FW_FAMILIES has 6).  FW_BOTH_IP_TABLES=1
# (run-guest --env) runs the reference twice instead: the check that the
# comparison itself is deterministic (masked fields, fresh conntrack tuples, per-rule limit
# state), i.e. that the test can pass once ebpfilter behaves as ip_tables.
fw_second_engine() {
	fw_leave_reference
	if [ "${FW_BOTH_IP_TABLES:-}" = 1 ]; then
		note "FW_BOTH_IP_TABLES=1: the second run is ip_tables again, not ebpfilter"
		fw_use_reference
	else
		case " $FW_FAMILIES " in *" 6 "*) ipt_family 6 ;; esac
		use_ebpfilter
		ipt_family 4
	fi
}

# fw_second_run RUN-FUNCTION: fw_second_engine, then RUN-FUNCTION ebpfilter
# (the run the reference is compared with); FW_OUT is copied into the run
# directory (/run/run-guest: run-guest keeps it) for a look after a failure.
fw_second_run() {
	fw_second_engine
	"$1" ebpfilter
	cp -r "$FW_OUT" /run/run-guest/ 2>/dev/null
}

# fw_tcp_retrans NETNS...: TCP segments retransmitted so far in these
# namespaces ("root": this one), summed.  A SYN that timed out is sent again
# after the 1 s RTO when the guest stalls past vprobe's 800 ms, and the
# copy is counted (and logged) by the rules once more.
fw_tcp_retrans() {
	local ns n=0 r
	for ns in "$@"; do
		if [ "$ns" = root ]; then set --; else set -- ip netns exec "$ns"; fi
		r=$("$@" awk '$1 == "Tcp:" { if (!f) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") f = i; next } print $f }' /proc/net/snmp)
		n=$((n + r))
	done
	echo $n
}

# fw_finish: back to empty tables (each of FW_FAMILIES), ebpfilter unloaded
fw_finish() {
	local f
	for f in $FW_FAMILIES; do
		ipt_family "$f"
		ipt_reset_all
	done
	ipt_family 4
	if lsmod | grep -q '^ebpfilter '; then
		modprobe -r ebpfilter || fail "cannot unload ebpfilter"
	fi
}
