#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, parts sockopt-fuzz (IPv4) and sockopt-fuzz6 (IPv6,
# sockopt-fuzz6.sh: SOAK_FUZZ_FAMILY=6): SOAK_FUZZ_N malformed and mutated
# iptables sockopt requests (tests/soak/soak-tool fuzz or fuzz6, seed
# SOAK_SEED) against the family's kernel module (ip_tables; ip6_tables),
# then the same requests against ebpfilter in this guest (loaded with
# ipv6=1 for IPv6: SOL_IPV6, IP6T_SO_*, ip6t_entry blobs).
# Checked: the same errno class for every case (ok / refused; the exact
# errnos that differ are counted and listed), no refused request changed
# a table, every table holds the committed rules at the end, the probe's
# rules enforced every 500 cases and at the end, the helper alive (or
# restarted) and serving; the harness fails the run on any BUG/WARN/oops.
# One family a part (until 2026-12-07 one part ran both: 2-8 h per kernel
# at the full scale, more than a session).
. tests/guest/ipt-lib.sh
N=${SOAK_FUZZ_N:-2000}
SEED=${SOAK_SEED:-1}
FAMILY=${SOAK_FUZZ_FAMILY:-4}
TOOL=${SOAK_TOOL:-build/tests/soak-tool}
[ -x "$TOOL" ] || fail "no $TOOL (make -C tests tools)"
case $FAMILY in
4) PART=sockopt-fuzz ;;
# ebpfilter serves IPv6 only with the ipv6 parameter: without it the
# part cannot run, and must not pass
6) PART=sockopt-fuzz6
   ebpf_has_ipv6 || fail "$EBPF_KO has no ipv6 parameter: the IPv6 cases cannot run" ;;
*) fail "SOAK_FUZZ_FAMILY: 4 or 6" ;;
esac

# request_module() for a name no module provides, answered without
# modprobe.  The mutated blobs name tables and extensions that do not
# exist ("iptable_maogle", "ipt_"), and the kernel runs modprobe for
# each: 130 ms an exec under TCG, three quarters of the time of a case
# (6.12, 300 cases: 11.4 s, 2.9 s without modprobe; 2026-12-07).  The
# wrapper runs the real modprobe for every name this kernel's modules,
# aliases and builtins provide and for every name outside the
# families' prefixes, so what loads and what fails is what it would
# be; it only spares the exec that would fail.  absent_log counts them.
MODPROBE_WAS=$(cat /proc/sys/kernel/modprobe)
absent_log=/tmp/soak-absent-modules
fast_absent_modprobe() {
	local d=/lib/modules/$(uname -r) names t
	# -H: the other suites' kernels' $d is a symlink into their chroot
	# (mk/kernel-chroot); without it find lists nothing there, and every
	# module named by its file (ip6t_frag, iptable_nat) was spared
	names=$({ find -H "$d" -name '*.ko*' | sed 's|.*/||; s|\.ko.*||'
		  awk '$1 == "alias" { print $2 }' "$d/modules.alias"
		  sed 's|.*/||; s|\.ko.*||' "$d/modules.builtin"; } |
		tr - _ | grep -E '^(ipt|ip6t|iptable|ip6table)_[A-Za-z0-9_]+$' |
		sort -u | paste -sd '|')
	# every kernel has these two tables, as modules or built in
	for t in iptable_filter ip6table_filter; do
		case "|$names|" in
		*"|$t|"*) ;;
		*) fail "$t is not among the module names under $d" ;;
		esac
	done
	cat >/tmp/soak-modprobe <<-EOF
	#!/bin/sh
	# request_module(): argv -q -- NAME (tests/soak/guest/sockopt-fuzz.sh)
	case "\$3" in
	*-*) exec $MODPROBE_WAS "\$@" ;;
	$names) exec $MODPROBE_WAS "\$@" ;;
	ipt_*|ip6t_*|iptable_*|ip6table_*) echo "\$3" >>$absent_log; exit 1 ;;
	esac
	exec $MODPROBE_WAS "\$@"
	EOF
	chmod +x /tmp/soak-modprobe
	: >$absent_log
	echo /tmp/soak-modprobe >/proc/sys/kernel/modprobe
}
fast_absent_modprobe

# errno class: ok or refused
cls() { awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3, ($4 == "ok" ? "ok" : "refused") }' "$1"; }

# fuzz_family 4|6: the family's cases against its kernel module, then
# against ebpfilter (unloaded again); sets fam_ok (yes/no) and fam_counts
fuzz_family() {
	local f=$1 cmd=fuzz O rc t0 t1 t2 alive r0 restarts class_mm errno_mm
	local changed broken checks refused
	[ "$f" = 6 ] && cmd=fuzz6
	ipt_family "$f"
	O=$IPT_OUT/soak-fuzz$f
	mkdir -p "$O"

	t0=$(date +%s)
	use_ip_tables
	"$TOOL" $cmd "$SEED" "$N" >"$O/ip_tables" 2>"$O/ip_tables.err" ||
		note "$IPT_CORE run: $(tail -n 3 "$O/ip_tables.err"; grep -E 'CHANGED|BROKEN|FAILED|not the' "$O/ip_tables" | head -n 3)"
	cat "$O/ip_tables.err"
	leave_ip_tables
	t1=$(date +%s)
	r0=$(dmesg | grep -c 'ebpfilter: helper restarted')
	use_ebpfilter
	"$TOOL" $cmd "$SEED" "$N" >"$O/ebpfilter" 2>"$O/ebpfilter.err"
	rc=$?
	cat "$O/ebpfilter.err"
	t2=$(date +%s)
	# served: a request of this family answered by the helper
	alive=yes
	if [ "$f" = 6 ]; then
		$IPT -w -S >/dev/null || alive=no
	else
		request_ok || alive=no
	fi
	[ "$(helper_count)" = 1 ] || alive="no ($(helper_count) helpers)"
	restarts=$(($(dmesg | grep -c 'ebpfilter: helper restarted') - r0))
	modprobe -r ebpfilter || fail "cannot unload ebpfilter"

	diff <(cls "$O/ip_tables") <(cls "$O/ebpfilter") >"$O/class.diff"
	class_mm=$(grep -c '^>' "$O/class.diff")
	# exact errnos: case kind ip_tables-errno ebpfilter-errno
	join <(awk '$1 ~ /^[0-9]+$/ { print $1, $2"/"$3, $4 }' "$O/ip_tables" | sort -k1,1) \
		<(awk '$1 ~ /^[0-9]+$/ { print $1, $4 }' "$O/ebpfilter" | sort -k1,1) |
		awk '$3 != $4' | sort -n >"$O/errno.diff"
	errno_mm=$(wc -l <"$O/errno.diff")
	changed=$(grep -c CHANGED "$O/ebpfilter")
	broken=$(grep -c 'traffic BROKEN' "$O/ebpfilter")
	checks=$(grep -c '^traffic ' "$O/ebpfilter")
	refused=$(awk '$1 ~ /^[0-9]+$/ && $4 != "ok"' "$O/ebpfilter" | wc -l)
	echo "--- IPv$f: errno differences (case table/kind $IPT_CORE ebpfilter), by kind:"
	awk '{ print $2, $3, "->", $4 }' "$O/errno.diff" | sort | uniq -c | sort -rn | head -n 30
	echo "--- IPv$f: first errno differences:"
	head -n 10 "$O/errno.diff"
	echo "--- IPv$f: first class differences:"
	head -n 20 "$O/class.diff"
	# both sides answered every case, or the comparison is short (the
	# reference side's fuzzer killed: 6.12, 2026-12-07, the OOM killer)
	local ref_n ebpf_n short=""
	ref_n=$(awk '$1 ~ /^[0-9]+$/' "$O/ip_tables" | wc -l)
	ebpf_n=$(awk '$1 ~ /^[0-9]+$/' "$O/ebpfilter" | wc -l)
	[ "$ref_n" = "$N" ] && [ "$ebpf_n" = "$N" ] ||
		short="; ANSWERED ONLY $ref_n ($IPT_CORE) and $ebpf_n (ebpfilter) of $N cases"
	fam_ok=no
	[ "$rc" = 0 ] && [ "$class_mm" = 0 ] && [ "$changed" = 0 ] && [ "$broken" = 0 ] &&
		[ "$alive" = yes ] && [ -z "$short" ] && fam_ok=yes
	absent=$(wc -l <$absent_log)
	fam_counts="$N cases x2 ($IPT_CORE $((t1 - t0)) s, ebpfilter $((t2 - t1)) s); $refused refused; class differences $class_mm; errno differences $errno_mm; refused-but-changed $changed; traffic checks $checks, broken $broken; helper alive: $alive, restarts $restarts; $absent module requests for names no module provides spared modprobe$short"
	echo "IPv$f: ok=$fam_ok $fam_counts"
}

fuzz_family "$FAMILY"
echo "$MODPROBE_WAS" >/proc/sys/kernel/modprobe
echo "module requests spared modprobe, by name:"
sort $absent_log | uniq -c | sort -rn | head -n 10 | cat -v
result=PASS
[ "$fam_ok" = yes ] || result=FAIL
echo "SOAK-RESULT $PART $result $fam_counts"
[ $result = PASS ] || fail "$PART: $fam_counts"
