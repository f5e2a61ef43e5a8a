#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test with a real front-end: the commands of Debian's
# fail2ban action iptables-multiport (action.d/iptables-multiport.conf and
# the iptables.conf it includes, staged on the host by
# tests/tools/stage-fw-pkgs), rendered by fail2ban's own config reader and
# tag substitution (tests/fw/f2b-render.py: the command texts come from the
# package file, none is retyped here) and run with /bin/sh as fail2ban's
# server runs them, under the kernel's ip_tables and ip6_tables, then under
# ebpfilter loaded with ipv6=1, in this guest.  The default blocktype is
# REJECT --reject-with icmp-port-unreachable; for IPv6 bans (family inet6)
# the action runs ip6tables with icmp6-port-unreachable.
#
# The jail: name sshd, port=22,53, protocol=tcp,udp (the action's loop over
# protocols runs twice), 20 banned addresses: 10.0.1.2 first (unbanned
# again later), 18 others, 10.0.1.130 last (stays banned); namespace c holds
# both 10.0.1.2 and 10.0.1.130 (tests/verdict/topology.sh).  The sequence:
#   actionstart; probes (all connect)
#   actionban x20; actioncheck (-C); save; probes (both banned sources:
#     TCP 22 and UDP 53 rejected, TCP 80 (not a jail port) connects)
#   actionunban of the first 10 (10.0.1.2 among them); actioncheck; save;
#     probes (10.0.1.2 connects, 10.0.1.130 still rejected)
#   actionstop; save; probes (all connect)
# then the inet6 family, as fail2ban runs it for IPv6 tickets: actionstart
# (ip6tables), 6 actionbans (fd00:1::2 first, fd00:1::130 last, both in
# namespace c), actioncheck, 3 actionunbans, actioncheck, actionstop, with
# ip6tables-legacy-save and the same probes over IPv6 after each phase.
# Every command's output and exit status, every save (no counters) and
# every probe result must be identical under both engines.  The ip_tables
# run must itself reject the banned sources as recorded below (TCP connect:
# ECONNREFUSED from the ICMP port unreachable, "refused"; UDP: "refused")
# and let the others through, else the reference is broken.
# Ends with "N passed, N failed" over the parts.
# run-all-cost: 120
FW_FAMILIES="4 6"
. tests/guest/fw-lib.sh
fw_tier fail2ban

fw_staged
verdict_tools
fw_legacy_alternatives

F2B_CMDS=$FW_OUT/f2b-cmds
ips="10.0.1.2 $(seq -f '10.0.9.%g' 1 18 | paste -sd' ') 10.0.1.130"
rm -rf "$F2B_CMDS"
PYTHONPATH=$FW_STAGE/usr/lib/python3/dist-packages python3 tests/fw/f2b-render.py \
	"$FW_STAGE/etc/fail2ban" iptables-multiport sshd "$F2B_CMDS" \
	port=22,53 protocol=tcp,udp -- $ips || fail "cannot render the fail2ban action"
[ "$(ls "$F2B_CMDS" | grep -c actionban)" = 20 ] || fail "rendered $(ls "$F2B_CMDS" | grep -c actionban) bans, not 20"
grep -q -- '-j REJECT --reject-with icmp-port-unreachable$' "$F2B_CMDS"/*-actionban-10.0.1.130.sh ||
	fail "the rendered ban is not the package's default REJECT: $(cat "$F2B_CMDS"/*-actionban-10.0.1.130.sh)"
note "rendered: $(ls "$F2B_CMDS" | wc -l) commands, e.g. $(cat "$F2B_CMDS"/*-actionban-10.0.1.130.sh)"
# inet6: what fail2ban runs for IPv6 tickets ([Init?family=inet6])
F2B_CMDS6=$FW_OUT/f2b-cmds6
rm -rf "$F2B_CMDS6"
PYTHONPATH=$FW_STAGE/usr/lib/python3/dist-packages python3 tests/fw/f2b-render.py \
	"$FW_STAGE/etc/fail2ban" iptables-multiport sshd "$F2B_CMDS6" \
	port=22,53 protocol=tcp,udp -- fd00:1::2 fd00:9::1 fd00:9::2 fd00:9::3 fd00:9::4 fd00:1::130 ||
	fail "cannot render the fail2ban action for inet6"
grep -q -- '^ip6tables .*-I f2b-sshd 1 -s fd00:1::130 -j REJECT --reject-with icmp6-port-unreachable$' \
	"$F2B_CMDS6"/07-actionban-fd00:1::130.sh ||
	fail "the rendered inet6 ban is not ip6tables with icmp6-port-unreachable: $(cat "$F2B_CMDS6"/07-actionban-*)"
[ -e "$F2B_CMDS6"/08-actioncheck.sh ] && [ -e "$F2B_CMDS6"/12-actioncheck.sh ] &&
	[ -e "$F2B_CMDS6"/13-actionstop.sh ] || fail "unexpected rendered inet6 sequence: $(ls "$F2B_CMDS6" | paste -sd' ')"

trap 'topo_teardown' EXIT
topo_setup && topo_add_v6 c vethc fd00:1::1 fd00:1::2 fd00:1::130 || fail "topology"
topo_servers "$VPROBE"	# listeners on 22, 53, 80, ... in every namespace
"$VPROBE" serve -6 22 53 80 &
TOPO_SERVERS="$TOPO_SERVERS $!"
sleep 0.5
fw_warmup
fw_warmup c fd00:1::2 fd00:1::1 22

# probes LABEL [NET]: TCP 22 and UDP 53 from both sources, TCP 80 from the
# one that stays banned (80 is no jail port); NET 10.0.1. (default) or
# fd00:1:: for IPv6 (fw_probe6: a probe answered by an ICMPv6 destination
# unreachable reads "icmp6-unreach")
probes() {
	local p n=${2:-10.0.1.} probe=fw_probe
	[ -n "${2:-}" ] && probe=fw_probe6
	for p in "tcp2 tcp 2 22" "udp2 udp 2 53" "tcp130 tcp 130 22" \
		"udp130 udp 130 53" "tcp130-80 tcp 130 80"; do
		set -- $p
		echo "$1 $($probe "$1" c "$2" "$n$3" "${n}1" "$4")"
	done | sed "s/^/$1 /"
}

# run_cmds GLOB: each rendered command file matching GLOB in $cmds (the
# family's F2B_CMDS), in order, with /bin/sh -c (fail2ban's executeCmd:
# subprocess with shell=True), its text, output and exit status
run_cmds() {
	local f out rc
	for f in "$cmds"/$1; do
		echo "\$ $(basename "$f" .sh)"
		sed 's/^/> /' "$f"
		out=$(sh -c "$(cat "$f")" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		echo "[exit $rc]"
	done
}

# The rendered files, by phase (f2b-render.py numbers them in order:
# actionstart, 20 bans, actioncheck, 10 unbans, actioncheck, actionstop)
phase_files() {	# FIRST LAST: the NN-prefixes FIRST..LAST
	local i
	for i in $(seq "$1" "$2"); do printf '%02d-*.sh\n' "$i"; done
}
[ -e "$F2B_CMDS"/22-actioncheck.sh ] && [ -e "$F2B_CMDS"/33-actioncheck.sh ] &&
	[ -e "$F2B_CMDS"/34-actionstop.sh ] || fail "unexpected rendered sequence: $(ls "$F2B_CMDS" | paste -sd' ')"

run_phase() {	# FIRST LAST
	local g
	for g in $(phase_files "$1" "$2"); do run_cmds "$g"; done
}

run_f2b() {	# BACKEND
	local b=$1 o=$FW_OUT/f2b cmds=$F2B_CMDS
	: >"$o.commands.$b"
	: >"$o.save.$b"
	: >"$o.verdicts.$b"
	run_phase 1 1 >>"$o.commands.$b"
	probes started >>"$o.verdicts.$b"
	run_phase 2 22 >>"$o.commands.$b"
	{ echo "# after 20 bans"; fw_save; } >>"$o.save.$b"
	probes banned >>"$o.verdicts.$b"
	run_phase 23 33 >>"$o.commands.$b"
	{ echo "# after 10 unbans"; fw_save; } >>"$o.save.$b"
	probes unbanned >>"$o.verdicts.$b"
	run_phase 34 34 >>"$o.commands.$b"
	{ echo "# after actionstop"; fw_save; } >>"$o.save.$b"
	probes stopped >>"$o.verdicts.$b"
	# inet6, started on demand by the first IPv6 ticket as fail2ban does
	cmds=$F2B_CMDS6
	: >"$o.save6.$b"
	run_phase 1 1 >"$o.commands6.$b"
	probes started fd00:1:: >"$o.verdicts6.$b"
	run_phase 2 8 >>"$o.commands6.$b"
	{ echo "# after 6 bans"; fw_save6; } >>"$o.save6.$b"
	probes banned fd00:1:: >>"$o.verdicts6.$b"
	run_phase 9 12 >>"$o.commands6.$b"
	{ echo "# after 3 unbans"; fw_save6; } >>"$o.save6.$b"
	probes unbanned fd00:1:: >>"$o.verdicts6.$b"
	run_phase 13 13 >>"$o.commands6.$b"
	{ echo "# after actionstop"; fw_save6; } >>"$o.save6.$b"
	probes stopped fd00:1:: >>"$o.verdicts6.$b"
	note "fail2ban inet6 on $b: $(grep -c '^\[exit 0\]' "$o.commands6.$b") of $(grep -c '^\$ ' "$o.commands6.$b") commands succeeded"
	note "fail2ban on $b: $(grep -c '^\[exit 0\]' "$o.commands.$b") of $(grep -c '^\$ ' "$o.commands.$b") commands succeeded"
}

fw_use_reference
run_f2b ip_tables
o=$FW_OUT/f2b
# The reference: every command succeeds, the bans reject as fail2ban means.
[ "$(grep -c '^\[exit 0\]' "$o.commands.ip_tables")" = 34 ] ||
	{ cat "$o.commands.ip_tables"; fail "under ip_tables, not every fail2ban command succeeded"; }
want="started tcp2 ok
started udp2 ok
started tcp130 ok
started udp130 ok
started tcp130-80 ok
banned tcp2 refused
banned udp2 refused
banned tcp130 refused
banned udp130 refused
banned tcp130-80 ok
unbanned tcp2 ok
unbanned udp2 ok
unbanned tcp130 refused
unbanned udp130 refused
unbanned tcp130-80 ok
stopped tcp2 ok
stopped udp2 ok
stopped tcp130 ok
stopped udp130 ok
stopped tcp130-80 ok"
fw_expect "probe results" "$want" "$(cat "$o.verdicts.ip_tables")"
[ "$(grep -c '^\[exit 0\]' "$o.commands6.ip_tables")" = 13 ] ||
	{ cat "$o.commands6.ip_tables"; fail "under ip6_tables, not every inet6 fail2ban command succeeded"; }
# IPv6: a banned source's probes are answered with icmp6-port-unreachable
want6=$(echo "$want" | sed 's/ refused$/ icmp6-unreach/')
fw_expect "IPv6 probe results" "$want6" "$(cat "$o.verdicts6.ip_tables")"
fw_second_run run_f2b

fw_compare "fw-fail2ban/commands (actionstart, 20 bans, actioncheck, 10 unbans, actioncheck, actionstop: outputs and exit statuses)" "$o.commands"
fw_compare "fw-fail2ban/saves (after bans, unbans, stop)" "$o.save"
fw_compare "fw-fail2ban/verdicts (banned: icmp-port-unreachable; unbanned: connect)" "$o.verdicts"
fw_compare "fw-fail2ban/inet6 commands (actionstart, 6 bans, actioncheck, 3 unbans, actioncheck, actionstop)" "$o.commands6"
fw_compare "fw-fail2ban/inet6 saves (ip6tables-legacy-save after bans, unbans, stop)" "$o.save6"
fw_compare "fw-fail2ban/inet6 verdicts (banned: icmp6-port-unreachable; unbanned: connect)" "$o.verdicts6"
fw_finish
echo "$fw_passed passed, $fw_failed failed"
[ $fw_failed = 0 ]
