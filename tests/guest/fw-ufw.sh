#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test with a real front-end: Debian's ufw (staged on the host
# by tests/tools/stage-fw-pkgs; never installed or run on the host) driven
# through its CLI under the kernel's ip_tables and ip6_tables, then under
# ebpfilter loaded with ipv6=1 (serving both families: ufw's default
# IPV6=yes writes before6.rules and user6.rules, with icmpv6, rt, hl,
# LOG, limit, recent and REJECT), in this guest.
#
# Per backend, with a fresh /etc/ufw (tmpfs, populated as ufw's postinst
# does from /usr/share/ufw):
#   1. the commands: ufw --force enable (the prompt answered by --force),
#      allow 22/tcp, limit 2222/tcp, deny 23, reject 24/tcp, logging
#      medium, reload, status verbose: each command's output and exit status;
#   2. iptables-legacy-save and ip6tables-legacy-save (no counters);
#   3. probe traffic from namespace c (10.0.1.2) over vethc to the guest
#      (10.0.1.1), listeners on every probed port: 22 (allowed), 23
#      (denied: DROP), 24 (rejected: tcp-reset), 25 (nothing: the default
#      DROP policy, logged "[UFW BLOCK]"), then 8 connects to 2222 in a row
#      (ufw limit: recent --hitcount 6 in 30 s, then REJECT);
#   3b. the same over IPv6 on the same veth: fd00:1::2 to fd00:1::1, 22,
#      23, 24, 25 and 8 connects to 2222 (ufw's v6 rules: 24's rejection
#      is tcp-reset too; ufw6-user-limit's REJECT icmp6-port-unreachable,
#      read "icmp6-unreach": fw-lib.sh's fw_probe6 says why), and their
#      "[UFW " lines (flow label masked too), the distinct ones;
#   4. the "[UFW " LOG lines in dmesg (timestamp, IP id, source port
#      masked): the distinct ones always, every line when no SYN was
#      retransmitted (see the end);
#   5. ufw --force disable.
# Each of these must be identical under both engines; the ip_tables run
# must itself show ufw's documented behaviour (22 ok, 23 timeout, 24
# refused, 25 timeout with a [UFW BLOCK] line, the limit; in both
# families), or the test fails as a broken reference.  Ends with
# "N passed, N failed" over the parts.
# run-all-cost: 240
FW_FAMILIES="4 6"
. tests/guest/fw-lib.sh
fw_tier ufw

fw_staged
verdict_tools
fw_legacy_alternatives

# ufw into the guest's throwaway overlay: the python package, ufw-init and
# its functions (/lib/ufw, where ufw also keeps its lock files), the
# templates and messages (/usr/share/ufw), /etc/default/ufw.  /etc/ufw is a
# tmpfs per backend (ufw_fresh_config).
cp -a "$FW_STAGE/usr/lib/python3/dist-packages/ufw" /usr/lib/python3/dist-packages/ &&
	mkdir -p /lib/ufw /usr/share/ufw /etc/ufw &&
	cp -a "$FW_STAGE/lib/ufw/." /lib/ufw/ &&
	cp -a "$FW_STAGE/usr/share/ufw/." /usr/share/ufw/ &&
	cp -a "$FW_STAGE/usr/sbin/ufw" /usr/sbin/ufw &&
	cp -a "$FW_STAGE/etc/default/ufw" /etc/default/ufw || fail "cannot install ufw in the guest"
# ufw refuses files that are not root's or are group/world writable
chown -R root:root /usr/lib/python3/dist-packages/ufw /lib/ufw /usr/share/ufw /usr/sbin/ufw /etc/default/ufw

# What ufw's postinst does on a first install (configure), into a fresh
# tmpfs: the rules templates (mode 640), user rules, ufw.conf.
ufw_fresh_config() {
	local f
	umount /etc/ufw 2>/dev/null
	mount -t tmpfs -o mode=755 ufw-etc /etc/ufw || fail "tmpfs /etc/ufw"
	cp -a "$FW_STAGE/etc/ufw/." /etc/ufw/ || fail "ufw: etc"
	for f in before.rules before6.rules after.rules after6.rules user.rules user6.rules; do
		install -m 640 "/usr/share/ufw/iptables/$f" "/etc/ufw/$f" || fail "ufw: $f"
	done
	for f in before.init after.init; do
		install -m 640 "/usr/share/ufw/$f" "/etc/ufw/$f" || fail "ufw: $f"
	done
	install -m 644 /usr/share/ufw/ufw.conf /etc/ufw/ufw.conf || fail "ufw: ufw.conf"
	chown -R root:root /etc/ufw
}

UFW_CMDS='ufw --force enable
ufw allow 22/tcp
ufw limit 2222/tcp
ufw deny 23
ufw reject 24/tcp
ufw logging medium
ufw reload
ufw status verbose'

trap 'topo_teardown' EXIT
topo_setup && topo_add_v6 c vethc fd00:1::1 fd00:1::2 || fail "topology"
# listeners on every probed port, so a refusal or a timeout is the firewall's
"$VPROBE" serve 22 23 24 25 2222 &
TOPO_SERVERS=$!
"$VPROBE" serve -6 22 23 24 25 2222 &
TOPO_SERVERS="$TOPO_SERVERS $!"
sleep 0.5
fw_warmup
fw_warmup c fd00:1::2 fd00:1::1 22

# probe_ports FAMILY SRC DST: the probes of step 3 (3b), into
# $o.verdicts$FAMILY.$b and $o.limit$FAMILY.$b ($o, $b: run_ufw's)
probe_ports() {
	local p i probe=fw_probe
	[ "$1" = 6 ] && probe=fw_probe6
	for p in allow22:22 deny23:23 reject24:24 policy25:25; do
		echo "${p#*:} $($probe "${p%:*}$1" c tcp "$2" "$3" "${p#*:}")"
	done >"$o.verdicts$1.$b"
	for i in 1 2 3 4 5 6 7 8; do
		echo "2222#$i $($probe "limit2222$1" c tcp "$2" "$3" 2222)"
	done >"$o.limit$1.$b"
}

run_ufw() {	# BACKEND
	local b=$1 o=$FW_OUT/ufw i t0 r0
	ufw_fresh_config
	echo "$UFW_CMDS" >"$o.cmds"
	run_session "$o.cmds" >"$o.commands.$b"
	fw_save >"$o.save.$b"
	fw_save6 >"$o.save6.$b"
	t0=$SECONDS
	r0=$(fw_tcp_retrans c)
	dmesg_mark
	probe_ports "" 10.0.1.2 10.0.1.1
	sleep 0.5	# the last LOG lines into the kernel log
	fw_log_lines "[UFW " >"$o.log.$b"
	echo $((SECONDS - t0)) >"$o.secs.$b"
	echo $(($(fw_tcp_retrans c) - r0)) >"$o.retrans.$b"
	# IPv6: the limit and LOG rules are ufw's v6 ones, with their own
	# recent list and rate buckets
	dmesg_mark
	probe_ports 6 fd00:1::2 fd00:1::1
	sleep 0.5
	fw_log_lines "[UFW " | awk '!seen[$0]++' >"$o.logu6.$b"
	echo "ufw --force disable" >"$o.cmds2"
	run_session "$o.cmds2" >"$o.disable.$b"
	note "ufw on $b: $(grep -c '^\[exit 0\]' "$o.commands.$b") of $(echo "$UFW_CMDS" | wc -l) commands succeeded"
}

fw_use_reference
run_ufw ip_tables
# The reference must be ufw's documented behaviour.
o=$FW_OUT/ufw
[ "$(grep -c '^\[exit 0\]' "$o.commands.ip_tables")" = 8 ] ||
	{ cat "$o.commands.ip_tables"; fail "under ip_tables, not every ufw command succeeded"; }
fw_expect "allowed 22" ok "$(sed -n 's/^22 //p' "$o.verdicts.ip_tables")"
fw_expect "denied 23" timeout "$(sed -n 's/^23 //p' "$o.verdicts.ip_tables")"
fw_expect "rejected 24" refused "$(sed -n 's/^24 //p' "$o.verdicts.ip_tables")"
fw_expect "default policy 25" timeout "$(sed -n 's/^25 //p' "$o.verdicts.ip_tables")"
fw_expect "first limited connects" "ok ok ok ok ok" \
	"$(head -n 5 "$o.limit.ip_tables" | cut -d' ' -f2 | paste -sd' ')"
fw_expect "7th connect to 2222 in 30 s" refused "$(sed -n 's/^2222#7 //p' "$o.limit.ip_tables")"
grep -q '^\[UFW BLOCK\] IN=vethc OUT= MAC=.* SRC=10\.0\.1\.2 DST=10\.0\.1\.1 .*PROTO=TCP SPT=\* DPT=25 ' \
	"$o.log.ip_tables" || { cat "$o.log.ip_tables"; fail "under ip_tables: no [UFW BLOCK] line for the probe to 25"; }
note "ip_tables: $(paste -sd' ' "$o.verdicts.ip_tables"); limit: $(cut -d' ' -f2 "$o.limit.ip_tables" | paste -sd' '); $(wc -l <"$o.log.ip_tables") [UFW lines"
# IPv6 (ip6_tables): the same documented behaviour
fw_expect "IPv6 verdicts" "22 ok|23 timeout|24 refused|25 timeout" "$(paste -sd'|' "$o.verdicts6.ip_tables")"
fw_expect "IPv6 limit" "ok ok ok ok ok icmp6-unreach icmp6-unreach icmp6-unreach" \
	"$(cut -d' ' -f2 "$o.limit6.ip_tables" | paste -sd' ')"
grep -q -- '-A ufw6-before-input -m rt --rt-type 0 -j DROP$' "$o.save6.ip_tables" ||
	{ cat "$o.save6.ip_tables"; fail "under ip6_tables: no ufw6 rules saved (before6.rules' rt rule)"; }
grep -q '^\[UFW BLOCK\] IN=vethc OUT= MAC=.* SRC=fd00:0001:0000:0000:0000:0000:0000:0002 DST=fd00:0001:0000:0000:0000:0000:0000:0001 .*PROTO=TCP SPT=\* DPT=25 ' \
	"$o.logu6.ip_tables" || { cat "$o.logu6.ip_tables"; fail "under ip6_tables: no [UFW BLOCK] line for the IPv6 probe to 25"; }
note "ip6_tables: $(paste -sd' ' "$o.verdicts6.ip_tables"); $(wc -l <"$o.logu6.ip_tables") distinct [UFW lines"
fw_second_run run_ufw

fw_compare "fw-ufw/commands (outputs and exit statuses)" "$o.commands"
fw_compare "fw-ufw/save" "$o.save"
fw_compare "fw-ufw/verdicts 22 23 24 25" "$o.verdicts"
fw_compare "fw-ufw/limit 2222 (8 connects)" "$o.limit"
# The LOG lines depend on timing in two ways: a SYN to a dropped port (23,
# 25) is resent after the 1 s RTO when the guest stalls past vprobe's
# 800 ms, and the copy is logged again; ufw's LOG rules are limited to
# 3/min with a burst of 10, which the [UFW AUDIT] lines of the 12 connects
# use up, so such a copy takes a later line's token, and a probe phase of
# 20 s or more would refill one.  (Seen: with ip_tables on both sides, one
# more [UFW AUDIT] and [UFW BLOCK] for 25 and one less [UFW AUDIT] for
# 2222.)  So the distinct lines, in order of first appearance, are always
# compared; every line with its count only when neither run retransmitted
# and both probe phases were short, else that part is reported skipped.
secs="$(cat "$o.secs.ip_tables") $(cat "$o.secs.ebpfilter")"
retr="$(cat "$o.retrans.ip_tables") $(cat "$o.retrans.ebpfilter")"
note "probe phases took $secs s; TCP retransmissions from c: $retr"
for b in ip_tables ebpfilter; do awk '!seen[$0]++' "$o.log.$b" >"$o.logu.$b"; done
fw_compare "fw-ufw/LOG lines (distinct, in order)" "$o.logu"
if [ "$retr" = "0 0" ] && [ "$(echo $secs | tr ' ' '\n' | sort -n | tail -n1)" -lt 18 ]; then
	fw_compare "fw-ufw/LOG lines (every line)" "$o.log"
else
	skip_part fw-ufw/LOG-every-line "not compared: TCP retransmissions $retr, probe phases $secs s (a resent SYN is logged again)"
fi
fw_compare "fw-ufw/save6 (ip6tables-legacy-save)" "$o.save6"
fw_compare "fw-ufw/IPv6 verdicts 22 23 24 25" "$o.verdicts6"
fw_compare "fw-ufw/IPv6 limit 2222 (8 connects)" "$o.limit6"
fw_compare "fw-ufw/IPv6 LOG lines (distinct, in order)" "$o.logu6"
fw_compare "fw-ufw/disable" "$o.disable"
fw_finish
echo "$fw_passed passed, $fw_failed failed"
[ $fw_failed = 0 ]
