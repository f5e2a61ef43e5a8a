# SPDX-License-Identifier: GPL-2.0
# Helpers for the iptables guest tests (tests/guest/ipt-*.sh): switching the
# guest between the kernel's ip_tables and ebpfilter, and running scripted
# iptables-legacy sessions whose transcripts are compared.  Sourced; runs
# as root inside a QEMU guest only.
#
# IPT_FAMILY=6 (set before sourcing; default 4) switches every helper to
# IPv6: ip6tables-legacy, ip6_tables and its ip6table_* tables,
# /proc/net/ip6_tables_names, and ebpfilter loaded with ipv6=1.
. tests/guest/lib-ebpfilter.sh

# ipt_family 4|6: switch the helpers below to that family (a test driving
# both, as fw-ufw.sh does, switches between them; ebpfilter itself is
# loaded once, with ipv6=1 when IPT_FAMILY is 6 at use_ebpfilter).
ipt_family() {
	IPT_FAMILY=$1
	if [ "$IPT_FAMILY" = 6 ]; then
		IPT=ip6tables-legacy
		IPT_CORE=ip6_tables	# the kernel's module; its tables: ip6table_*
		IPT_TABLE_MOD=ip6table
		IPT_NAMES=/proc/net/ip6_tables_names
	else
		IPT=iptables-legacy
		IPT_CORE=ip_tables
		IPT_TABLE_MOD=iptable
		IPT_NAMES=/proc/net/ip_tables_names
	fi
}
ipt_family "${IPT_FAMILY:-4}"
IPT_OUT=${IPT_OUT:-/tmp/ipt-test}
IPT_BADBLOB=${IPT_BADBLOB:-build/tests/ipt-badblob}
mkdir -p "$IPT_OUT"

# Back to an empty filter table with ACCEPT policies (not a test step).
ipt_reset() {
	$IPT -w -F && $IPT -w -X && $IPT -w -Z &&
	$IPT -w -P INPUT ACCEPT && $IPT -w -P FORWARD ACCEPT &&
	$IPT -w -P OUTPUT ACCEPT
}

use_ip_tables() {
	lsmod | grep -q '^ebpfilter ' && fail "ebpfilter is loaded; ip_tables first"
	modindex_install	# the build's index snapshot, not the host's live one
	modprobe $IPT_CORE && modprobe ${IPT_TABLE_MOD}_filter ||
		fail "cannot load $IPT_CORE"
	note "backend: $IPT_CORE"
}

# Back to empty tables: the filter table as ipt_reset does, and every other
# table the netns has ($IPT_NAMES: nat, mangle, raw, security, once
# something used them) flushed, its user chains deleted,
# its counters zeroed and its built-in chains' policies ACCEPT.
ipt_reset_all() {
	local t c
	ipt_reset || return 1
	for t in $(cat $IPT_NAMES 2>/dev/null); do
		[ "$t" = filter ] && continue
		$IPT -w -t "$t" -F && $IPT -w -t "$t" -X && $IPT -w -t "$t" -Z || return 1
		for c in $($IPT -w -t "$t" -S | awk '$1 == "-P" { print $2 }'); do
			$IPT -w -t "$t" -P "$c" ACCEPT || return 1
		done
	done
}

# Empty tables drop the iptable_* modules' extra module references, so all
# can go: iptable_nat, iptable_mangle, iptable_raw and iptable_security
# when a test used those tables (the kernel loads them on first use; each
# holds ip_tables), then iptable_filter and ip_tables (with IPT_FAMILY=6:
# the ip6table_* modules and ip6_tables).  The xt_* modules
# the rules pulled in may stay; nf_nat goes with the NAT targets that hold
# it when nothing else uses it (else a note), so that ebpfilter's nat
# table loads it afresh, as after boot.
leave_ip_tables() {
	local t holders
	ipt_reset_all || fail "cannot reset the $IPT_CORE tables"
	for t in nat mangle raw security; do
		if lsmod | grep -q "^${IPT_TABLE_MOD}_$t "; then
			modprobe -r "${IPT_TABLE_MOD}_$t" ||
				fail "cannot unload ${IPT_TABLE_MOD}_$t"
		fi
	done
	if [ -d /sys/module/nf_nat ]; then
		holders=$(ls /sys/module/nf_nat/holders)
		# shellcheck disable=SC2086 # one module a word
		modprobe -r $holders nf_nat 2>/dev/null ||
			note "nf_nat stays loaded (holders: $holders)"
	fi
	modprobe -r ${IPT_TABLE_MOD}_filter $IPT_CORE || fail "cannot unload $IPT_CORE"
}

# Does the module under test take the ipv6 parameter (issue 18: ebpfilter
# serves ip6_tables' sockopts)?  Read from the .ko's modinfo, before it
# is loaded.
ebpf_has_ipv6() {
	modinfo -F parm "$EBPF_KO" 2>/dev/null | grep -q '^ipv6:'
}

# IPv6 tests skip (exit 77, "SKIP: ...") on a module without it, so they
# can land before the feature; never a silent pass.
ipt6_require_module() {
	ebpf_has_ipv6 || skip "$EBPF_KO has no ipv6 parameter (modinfo -F parm): ebpfilter does not serve ip6_tables yet"
}

# use_ebpfilter: load ebpfilter for IPT_FAMILY (EBPF_MODPARAMS: more module
# parameters, e.g. mechanism=tc).  IPv6 is served by default (ipv6=Y, said
# here anyway), its rules compiled (ipv6_bpf=Y) where the helper can and
# walked by the module elsewhere; with ipv6_bpf=0 the module walks them
# all.  The IPv6 tests run both in `make check`: the walk in the core tier
# (6.1), the default in the others, unless EBPF_MODPARAMS says.
use_ebpfilter() {
	local v6=
	[ "$IPT_FAMILY" = 6 ] && v6=ipv6=1
	[ "$IPT_FAMILY" = 6 ] && [ "${EBPF_TIER:-}" = core ] &&
		case " ${EBPF_MODPARAMS:-} " in *" ipv6_bpf="*) ;; *) v6="$v6 ipv6_bpf=0" ;; esac
	ebpf_install
	modprobe ebpfilter ${EBPF_MODPARAMS:-} $v6 || fail "cannot load ebpfilter"
	wait_for 10 test -e $IPT_NAMES || fail "no $IPT_NAMES from ebpfilter"
	note "backend: ebpfilter${v6:+ ($v6)}"
}

# The mechanism the tests load ebpfilter with: EBPF_MODPARAMS'
# mechanism=, else the default, kmod (the module's own hooks, every kernel;
# docs/design.md).  netfilter and tc are kept for comparison only.
ebpf_mech() {
	case " ${EBPF_MODPARAMS:-} " in
	*" mechanism=netfilter "*) echo netfilter ;;
	*" mechanism=tc "*) echo tc ;;
	*) echo kmod ;;
	esac
}

# Can ebpfilter enforce state/conntrack rules?  Not on the tc mechanism
# (at tc ingress conntrack has not run yet): the helper refuses them there
# (README, "Differences from ip_tables").
ebpf_has_ct() {
	[ "$(ebpf_mech)" != tc ]
}

# Filter: drop the rules ebpfilter refuses on the comparison mechanisms
# (--tcp-option has no emitter; on tc, state/conntrack), so the
# differential tests compare what both backends accept.  On kmod nothing is
# refused: what has no emitter runs through the kernel's own code.
ipt_drop_unenforceable() {
	case $(ebpf_mech) in
	kmod) cat ;;
	netfilter) grep -v -- '--tcp-option' ;;
	*) grep -vE -- '-m (state|conntrack)|--tcp-option' ;;
	esac
}

# ipt_racing ID LOG ARGS...: iptables-legacy ARGS without the xtables
# lock (a lock file of its own: XTABLES_LOCKFILE), so that concurrent
# writers really interleave their GET_ENTRIES and SET_REPLACE in the
# module; a commit refused with EAGAIN (the table changed since this
# writer read it: ip_tables' num_counters check) is retried, as a caller
# of libiptc must.  EINVAL is what ip_tables gives the SET_ADD_COUNTERS
# that follows a successful SET_REPLACE when another commit came in
# between (the number of counters changed): the change is in, so it is
# not retried (the callers check that each such change is in the table
# exactly once).  One line per attempt in LOG: "eagain", "ok", "einval"
# or "err MESSAGE"; status 0 once committed, 1 on any other error.
ipt_racing() {
	local id=$1 log=$2 out i
	shift 2
	for i in $(seq 1 100); do
		if out=$(XTABLES_LOCKFILE=/tmp/xtables.$id.lock $IPT "$@" 2>&1); then
			echo ok >>"$log"
			return 0
		fi
		case $out in
		*"Resource temporarily unavailable"*) echo eagain >>"$log" ;;
		*"Invalid argument"*) echo einval >>"$log"; return 0 ;;
		*) echo "err $out" >>"$log"; return 1 ;;
		esac
	done
	return 1
}

# What may differ between two runs of a command: the save timestamps.
ipt_normalize() {
	sed -e '/^# Generated by /d' -e '/^# Completed on /d'
}

# run_session FILE: run each command line of FILE in a subshell, printing
# the command, its normalized output (stdout and stderr) and its exit code.
# The line is eval'ed in the command substitution's subshell (set -u off, as
# in a fresh bash), and sed runs only on output it would change: under TCG
# an exec of bash or sed costs more than an iptables-legacy command does
# (2026-12-06, 6.12 guest: bash -c true 273 ms, printf | sed 246 ms,
# iptables-legacy -A 173 ms), and a session runs them once per line.
run_session() {
	local line out rc
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		printf '$ %s\n' "$line"
		out=$(set +u; eval "$line" 2>&1)
		rc=$?
		case $out in
		*'# Generated by '* | *'# Completed on '*)
			printf '%s\n' "$out" | ipt_normalize ;;
		*) printf '%s\n' "$out" ;;
		esac
		printf '[exit %d]\n' "$rc"
	done <"$1"
}
