# SPDX-License-Identifier: GPL-2.0
# Issue 18, kernel side: ip6tables-legacy under ebpfilter ipv6=1 against
# ip6_tables in the same boot.  Not a run-all test (tests/guest/ has the
# differential IPv6 tests); run it by hand in a guest:
#   tests/vm/run-guest --kver KVER --timeout 900 -- bash tests/adhoc/ip6-kmod.sh
# Each backend runs the same session (rules on all five tables, listings,
# then traffic over a veth pair: ping6 dropped/accepted, TCP accepted,
# REJECT with icmp6-port-unreachable, nat OUTPUT DNAT, counters); the
# transcripts must be identical.  Then: ebpfilter ipv6=1 refuses to load
# while ip6_tables holds the range, with a dmesg line; ipv6=0 loads beside
# it.
set -u
. tests/guest/lib-ebpfilter.sh

IP6=ip6tables-legacy
OUT=/tmp/ip6-kmod
mkdir -p "$OUT"

tcp_try() {	# tcp_try [NS] ADDR PORT: what a connect gives (ok or errno name)
	local ns=()
	if [ $# = 3 ]; then ns=(ip netns exec "$1"); shift; fi
	"${ns[@]}" python3 -c '
import errno, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("ok")
except socket.timeout:
    print("timeout")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
' "$1" "$2"
}

listen() {	# listen [NS] PORT: accept connections until killed
	local ns=()
	if [ $# = 2 ]; then ns=(ip netns exec "$1"); shift; fi
	"${ns[@]}" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", int(sys.argv[1])))
s.listen(8)
while True:
    c, _ = s.accept()
    c.close()
' "$1" &
}

# The sockopt checks' errnos: lengths, unknown options, revisions.
sockopts() {
	python3 -c '
import ctypes, socket
libc = ctypes.CDLL(None, use_errno=True)
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
def get(opt, buf, length):
    n = ctypes.c_uint(length)
    r = libc.getsockopt(s.fileno(), 41, opt, buf, ctypes.byref(n))
    return "ok %d" % r if r >= 0 else "errno %d" % ctypes.get_errno()
def setopt(opt, buf, length):
    r = libc.setsockopt(s.fileno(), 41, opt, buf, length)
    return "ok %d" % r if r >= 0 else "errno %d" % ctypes.get_errno()
b = ctypes.create_string_buffer(4096)
b.value = b"filter"
print("GET_INFO short", get(64, b, 10))
print("GET_INFO", get(64, b, 84))
b.value = b"nosuch"
print("GET_INFO no table", get(64, b, 84))
print("GET_ENTRIES short", get(65, b, 8))
print("option 66", get(66, b, 84))
print("option 67", get(67, b, 84))
rev = ctypes.create_string_buffer(30)
rev.value = b"tcp"
print("REVISION_MATCH tcp", get(68, rev, 30))
rev.value = b"REJECT"
print("REVISION_TARGET REJECT", get(69, rev, 30))
rev.value = b"nosuch"
print("REVISION_MATCH nosuch", get(68, rev, 30))
print("REVISION short", get(68, rev, 29))
print("SET_REPLACE short", setopt(64, b, 10))
print("SET_ADD_COUNTERS short", setopt(65, b, 10))
print("SET 66", setopt(66, b, 100))
'
}

pings() {	# pings N: answered echo requests from peer to the host side
	ip netns exec peer busybox ping -6 -c "$1" -W 1 -w "$(($1 + 1))" \
		2001:db8:1::1 2>/dev/null |
		awk '/packets received/ { print $4 }'
}

net_up() {
	ip netns add peer
	ip link add veth0 type veth peer name veth1
	ip link set veth1 netns peer
	ip addr add 2001:db8:1::1/64 dev veth0 nodad
	ip link set veth0 up
	ip netns exec peer ip addr add 2001:db8:1::2/64 dev veth1 nodad
	ip netns exec peer ip link set veth1 up
	ip netns exec peer ip link set lo up
	listen 5001
	listen 5002
	listen peer 5003
	sleep 1
}

net_down() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip link del veth0 2>/dev/null
	ip netns del peer 2>/dev/null
}

# The rules: every table, user chains, inserts, deletes, listings.
rules() {
	local t
	for t in filter nat mangle raw security; do
		$IP6 -t $t -N ADHOC &&
		$IP6 -t $t -A ADHOC -s 2001:db8::1/128 -p tcp --dport 22 -j RETURN &&
		$IP6 -t $t -I ADHOC 1 -p icmpv6 --icmpv6-type echo-request -j RETURN &&
		$IP6 -t $t -A ADHOC -d 2001:db8::/32 ! -i lo -j RETURN &&
		$IP6 -t $t -A OUTPUT -j ADHOC || echo "$t: rules refused"
		echo "== $t -S"; $IP6 -t $t -S
		echo "== $t -L -n"; $IP6 -t $t -L -n
		echo "== $t -L ADHOC -v -n -x"; $IP6 -t $t -L ADHOC -v -n -x
		$IP6 -t $t -D ADHOC 2 && $IP6 -t $t -D OUTPUT -j ADHOC &&
		$IP6 -t $t -F ADHOC && $IP6 -t $t -X ADHOC ||
			echo "$t: deletes refused"
		echo "== $t -S after"; $IP6 -t $t -S
	done
	echo "== refused: $($IP6 -t filter -A INPUT -p tcp -m nosuchmatch 2>&1 >/dev/null | tr '\n' ' ')"
	echo "== refused: $($IP6 -t nat -A INPUT -j DROP 2>&1 >/dev/null | tr '\n' ' ')"
	echo "== refused: $($IP6 -A INPUT -j DNAT --to-destination ::1 2>&1 >/dev/null | tr '\n' ' ')"
	# a changed mark at LOCAL_OUT: the packet is routed again
	$IP6 -t mangle -A OUTPUT -p tcp --dport 80 -j MARK --set-mark 7
	$IP6 -t raw -A PREROUTING -p tcp --dport 5009 -j CT --notrack
	$IP6 -t security -A INPUT -p tcp --dport 5009 -j ACCEPT
	echo "== mangle/raw/security"
	$IP6 -t mangle -S OUTPUT; $IP6 -t raw -S PREROUTING
	$IP6 -t security -S INPUT
}

traffic() {
	echo "== ping, open: $(pings 3)"
	$IP6 -A INPUT -s 2001:db8:1::2 -p icmpv6 --icmpv6-type echo-request -j DROP
	echo "== ping, dropped: $(pings 2)"
	$IP6 -R INPUT 1 -s 2001:db8:1::2 -p icmpv6 --icmpv6-type echo-request -j ACCEPT
	echo "== ping, accepted: $(pings 3)"
	echo "== counters: $($IP6 -L INPUT 1 -v -x -n | awk '{ print $1 }')"
	$IP6 -A INPUT -p tcp --dport 5002 -j REJECT --reject-with icmp6-port-unreachable
	echo "== tcp 5001: $(tcp_try peer 2001:db8:1::1 5001)"
	echo "== tcp 5002 (REJECT): $(tcp_try peer 2001:db8:1::1 5002)"
	$IP6 -A INPUT -p tcp --dport 5001 -j DROP
	echo "== tcp 5001 (DROP): $(tcp_try peer 2001:db8:1::1 5001)"
	$IP6 -t nat -A OUTPUT -d 2001:db8:1::99 -p tcp --dport 80 \
		-j DNAT --to-destination '[2001:db8:1::2]:5003'
	echo "== tcp DNAT to the peer: $(tcp_try 2001:db8:1::99 80)"
	echo "== mark rule: $($IP6 -t mangle -L OUTPUT 1 -v -x -n | awk '{ print $1 }')"
	# the peer's own table (its namespace's; gone with it)
	ip netns exec peer $IP6 -A OUTPUT -p icmpv6 --icmpv6-type echo-request -j DROP
	echo "== ping, dropped in the peer: $(pings 2)"
	echo "== peer's table: $(ip netns exec peer $IP6 -L OUTPUT 1 -v -x -n | awk '{ print $1 }')"
	echo "== peer's ip6_tables_names: $(ip netns exec peer cat /proc/net/ip6_tables_names | tr '\n' ' ')"
	sockopts
	echo "== REJECT rule: $($IP6 -L INPUT 2 -v -x -n | awk '{ print $1 }')"
	$IP6 -S
}

session() {	# session NAME: the transcript in $OUT/NAME
	net_up
	{ rules; traffic; } >"$OUT/$1" 2>&1
	net_down
	for t in filter nat mangle raw security; do
		$IP6 -t $t -F; $IP6 -t $t -X
	done
	sort /proc/net/ip6_tables_names >"$OUT/$1.names"
}

ebpf_install
dmesg_mark
modprobe ebpfilter ipv6=1 || fail "cannot load ebpfilter ipv6=1"
dmesg | grep -q 'ebpfilter: loaded.*IPv6 served' ||
	fail "the load line does not say IPv6 is served: $(dmesg | grep 'ebpfilter: loaded')"
wait_for 10 test -e /proc/net/ip6_tables_names ||
	fail "no /proc/net/ip6_tables_names from ebpfilter"
session ebpfilter
note "ebpfilter's IPv6 tables: $(tr '\n' ' ' <"$OUT/ebpfilter.names")"
dmesg | grep 'ebpfilter:' | grep -i ipv6
rmmod ebpfilter || fail "rmmod ebpfilter"
[ -e /proc/net/ip6_tables_names ] && fail "ip6_tables_names left after rmmod"

modindex_install
modprobe ip6_tables || fail "cannot load ip6_tables"
session ip6_tables
if ! diff -u "$OUT/ip6_tables" "$OUT/ebpfilter"; then
	fail "transcripts differ (ip6_tables -, ebpfilter +)"
fi
diff -u "$OUT/ip6_tables.names" "$OUT/ebpfilter.names" ||
	fail "ip6_tables_names differ"
cat "$OUT/ebpfilter"

# ip6_tables holds the range: ipv6=1 is refused, ipv6=0 loads beside it
modprobe ebpfilter ipv6=1 && fail "ebpfilter ipv6=1 loaded beside ip6_tables"
dmesg | grep -q 'ebpfilter: the ip6tables sockopts are taken' ||
	fail "no dmesg line for the IPv6 conflict"
modprobe ebpfilter ipv6=0 || fail "ebpfilter ipv6=0 refused beside ip6_tables"
dmesg | grep -q 'ebpfilter: loaded.*IPv6 not served' ||
	fail "the load line does not say IPv6 is not served"
iptables-legacy -S >/dev/null || fail "iptables-legacy under ebpfilter ipv6=0"
rmmod ebpfilter || fail "rmmod ebpfilter (ipv6=0)"
echo "PASS ip6-kmod"
