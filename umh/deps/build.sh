#!/bin/bash
# Builds the static (musl) dependencies of ebpfilter-umh: zlib (libz.a),
# elfutils (libelf.a only) and libbpf (libbpf.a), from Debian source packages
# of pinned suites. See README.md next to this file.
#
# usage: build.sh [--fetch-only] [--src DIR] [--out DIR]
#   --fetch-only  only fetch/unpack the sources into the src dir, build nothing
#   --src DIR     use prepared sources in DIR (DIR/zlib, DIR/elfutils,
#                 DIR/libbpf, unpacked trees); nothing is fetched, a missing
#                 tree is an error. Same as EBPFILTER_DEPS_SRC=DIR.
#   --out DIR     install into DIR (default: out/ here). EBPFILTER_DEPS_OUT.
# env: CC (default musl-gcc), JOBS (default: nproc),
#      EBPFILTER_DEPS_STRICT=1 fails when the source versions differ from
#      the ones recorded in VERSIONS next to this file.
#
# Result: OUT/include (zlib.h, zconf.h, libelf.h, gelf.h, nlist.h, bpf/*.h),
#         OUT/lib (libz.a, libelf.a, libbpf.a), OUT/uapi (kernel uapi headers,
#         use with -idirafter only), OUT/VERSIONS.
# Idempotent: when OUT is complete and matches this script, the sources and
# the toolchain, it does nothing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"

# package  suite   (pins; libbpf >= 1.2 is needed for BPF_PROG_TYPE_NETFILTER
# links, bpf_program__attach_netfilter: bookworm has 1.1.2, so libbpf comes
# from trixie, whose whole source package the archive serves; see README.md)
PINS=(
	"zlib bookworm"
	"elfutils bookworm"
	"libbpf trixie"
)

fetch_only=0
src_given=${EBPFILTER_DEPS_SRC:-}
OUT=${EBPFILTER_DEPS_OUT:-$here/out}
while [ $# -gt 0 ]; do
	case "$1" in
	--fetch-only) fetch_only=1 ;;
	--src) src_given=$2; shift ;;
	--src=*) src_given=${1#--src=} ;;
	--out) OUT=$2; shift ;;
	--out=*) OUT=${1#--out=} ;;
	-h|--help) sed -n '2,22p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build.sh: unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
SRC=${src_given:-$here/src}
CC=${CC:-musl-gcc}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

die() { echo "build.sh: error: $*" >&2; exit 1; }
log() { echo "build.sh: $*" >&2; }
# One kbuild-style line per step ("  DEPS    zlib ..."); the tools' own
# output goes to a log file, shown when the step fails.
step() { printf '  %-7s %s\n' "$1" "$2"; }

# ---------------------------------------------------------------- sources --

# Version of an unpacked source tree: our own marker first, else the first
# line of debian/changelog.
src_version() {
	local d=$SRC/$1
	if [ -f "$d/.ebpfilter-source" ]; then
		sed -n 's/^version: //p' "$d/.ebpfilter-source"
	elif [ -f "$d/debian/changelog" ]; then
		sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$d/debian/changelog"
	else
		echo unknown
	fi
}

# A tree this script fetched from another suite, or before it required the
# whole source package (older versions fell back to the upstream tarball),
# is fetched again; it (and its downloads in .dl/) stay until the new one is
# unpacked.
stale_src() {
	local f=$SRC/$1/.ebpfilter-source
	[ -f "$f" ] || return 1
	grep -qx "suite: $2" "$f" &&
		grep -qx 'method: debian source package (dpkg-source -x)' "$f" && return 1
	return 0
}

fetch_pkg() {
	local name=$1 suite=$2 dest=$SRC/$1
	if stale_src "$name" "$suite"; then
		step REFETCH "$name: $dest is not the $suite source package"
	elif [ -d "$dest" ]; then
		return 0
	fi
	command -v apt-get >/dev/null || die "apt-get not found; fetch $name/$suite sources yourself and use --src"

	step FETCH "$name/$suite"
	local dl=$SRC/.dl/$name tmp aptopt=()
	mkdir -p "$dl"
	[ "$(id -u)" = 0 ] && aptopt=(-o APT::Sandbox::User=root)
	tmp=$(mktemp -d)
	# --print-uris omits files already in the cwd: run it in an empty dir.
	if ! (cd "$tmp" && apt-get "${aptopt[@]}" source --print-uris -qq "$name/$suite") \
		> "$dl/uris" 2> "$dl/uris.err" || ! grep -q '\.dsc' "$dl/uris"; then
		rmdir "$tmp"
		cat "$dl/uris.err" >&2
		die "cannot find source package $name in suite $suite. It needs a deb-src entry for $suite (see .ci/install-deps) and 'apt-get update'; or fetch the sources elsewhere and use --src DIR"
	fi
	rmdir "$tmp"
	# Downloads are verified by apt against the signed Sources index. A file
	# that cannot be fetched leaves the others in place.
	(cd "$dl" && apt-get "${aptopt[@]}" source --download-only -qq "$name/$suite") \
		> "$dl/fetch.log" 2>&1 || true

	local url file size hash dsc="" missing=() sums=""
	while read -r url file size hash; do
		case "$file" in
		*.dsc) dsc=$file ;;
		esac
		if [ ! -f "$dl/$file" ]; then
			missing+=("$file")
			continue
		fi
		[ "${hash%%:*}" = SHA256 ] || die "unexpected hash type for $file: $hash"
		echo "${hash#SHA256:}  $dl/$file" | sha256sum -c --quiet - >/dev/null ||
			die "checksum mismatch for $dl/$file"
		sums+="sha256: ${hash#SHA256:} $file"$'\n'
	done < "$dl/uris"
	local version=${dsc#"${name}"_}
	version=${version%.dsc}

	# The whole source package or nothing: the upstream tarball alone would
	# build without Debian's patches, and silently differ from what VERSIONS
	# says was tested.
	if [ ${#missing[@]} != 0 ]; then
		grep -E '^(E|Err):' "$dl/fetch.log" >&2 || cat "$dl/fetch.log" >&2
		die "cannot fetch the whole source package $name $version from $suite: the mirror does not serve ${missing[*]}. Use a mirror that does (the deb-src entry, see .ci/install-deps), or fetch and unpack the package elsewhere (apt-get source $name/$suite) and use --src DIR"
	fi
	rm -rf "$dest.tmp"
	dpkg-source -x "$dl/$dsc" "$dest.tmp" > "$dl/unpack.log" 2>&1 ||
		{ cat "$dl/unpack.log" >&2; die "dpkg-source -x $dsc failed"; }
	local method="debian source package (dpkg-source -x)"
	# dpkg-source leaves copies of the orig tarballs next to the tree.
	rm -f "$SRC/${name}"_*.orig.tar.*
	{
		echo "package: $name"
		echo "suite: $suite"
		echo "version: $version"
		echo "method: $method"
		printf '%s' "$sums"
	} > "$dest.tmp/.ebpfilter-source"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
}

if [ -z "$src_given" ] || [ "$fetch_only" = 1 ]; then
	for p in "${PINS[@]}"; do
		set -- $p
		mkdir -p "$SRC"
		fetch_pkg "$1" "$2"
	done
fi
[ "$fetch_only" = 1 ] && exit 0
for p in "${PINS[@]}"; do
	set -- $p
	[ -d "$SRC/$1" ] || die "source tree $SRC/$1 is missing"
done

# ------------------------------------------------------------ fast path --

# Everything the result depends on: this script, the sources, the compiler,
# the system uapi headers.
versions() {
	for p in "${PINS[@]}"; do
		set -- $p
		echo "$1 $(src_version "$1") ($2)"
	done
}
key=$( {
	sha256sum < "$self"
	versions
	echo "CC=$CC $(command -v "$CC" || true)"
	stat -c '%Y %s' /usr/include/linux/version.h /usr/lib/musl/lib/libc.a 2>/dev/null || true
} | sha256sum | cut -d' ' -f1)

complete() {
	[ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$key" ] &&
		[ -f "$OUT/lib/libz.a" ] && [ -f "$OUT/lib/libelf.a" ] && [ -f "$OUT/lib/libbpf.a" ]
}
if complete; then
	touch "$OUT/.stamp"
	exit 0
fi

mkdir -p "$OUT"
exec 9> "$OUT/.lock"
flock 9
if complete; then # built by a concurrent run meanwhile
	touch "$OUT/.stamp"
	exit 0
fi

command -v "$CC" >/dev/null || die "$CC not found (install musl-tools)"

# ---------------------------------------------------------------- build --

rm -rf "$OUT/include" "$OUT/lib" "$OUT/uapi" "$OUT/build" "$OUT/.stamp" "$OUT/VERSIONS"
mkdir -p "$OUT/include" "$OUT/lib" "$OUT/uapi" "$OUT/build"
B=$OUT/build
CFLAGS_COMMON="-Os -ffunction-sections -fdata-sections"
t0=$(date +%s)

# Private kernel uapi headers. musl-gcc uses -nostdinc, so it sees no linux/
# or asm/; add this dir with -idirafter only (musl's headers must win), and
# never -I/usr/include. libbpf's newer copies of some uapi headers (bpf.h,
# if_link.h, ...) replace the system's (bookworm's linux-libc-dev is 6.1).
UAPI=$OUT/uapi
step UAPI "$UAPI"
cp -r /usr/include/linux /usr/include/asm-generic "$UAPI/"
cp -r /usr/include/x86_64-linux-gnu/asm "$UAPI/asm"
cp "$SRC"/libbpf/include/uapi/linux/*.h "$UAPI/linux/"

# zlib
step DEPS "zlib $(src_version zlib) -> libz.a"
cp -a "$SRC/zlib" "$B/zlib"
(
	cd "$B/zlib"
	CC="$CC" CFLAGS="$CFLAGS_COMMON" ./configure --static --prefix=/nonexistent
	make -j"$JOBS" libz.a
) > "$B/zlib.log" 2>&1 || { tail -40 "$B/zlib.log" >&2; die "zlib build failed (log: $B/zlib.log)"; }
cp "$B/zlib/libz.a" "$OUT/lib/"
cp "$B/zlib/zlib.h" "$B/zlib/zconf.h" "$OUT/include/"

# libelf from elfutils. configure looks for argp/fts/obstack, which libelf
# does not use: preset them. lib/ is skipped (needs argp.h).
step DEPS "elfutils $(src_version elfutils) -> libelf.a"
cp -a "$SRC/elfutils" "$B/elfutils"
(
	cd "$B/elfutils"
	./configure CC="$CC" CFLAGS="$CFLAGS_COMMON" \
		CPPFLAGS="-I$OUT/include -idirafter $UAPI" LDFLAGS="-L$OUT/lib" \
		ac_cv_search_argp_parse="none required" \
		ac_cv_search_fts_close="none required" \
		ac_cv_search__obstack_free="none required" \
		ac_cv_lib_stdcpp___cxa_demangle=no \
		--disable-debuginfod --disable-libdebuginfod \
		--without-bzlib --without-lzma --without-zstd \
		--disable-nls --disable-symbol-versioning --disable-textrelcheck
	make -j"$JOBS" -C libelf libelf.a
) > "$B/elfutils.log" 2>&1 || { tail -40 "$B/elfutils.log" >&2; die "elfutils build failed (log: $B/elfutils.log)"; }
cp "$B/elfutils/libelf/libelf.a" "$OUT/lib/"
cp "$B/elfutils/libelf/libelf.h" "$B/elfutils/libelf/gelf.h" "$B/elfutils/libelf/nlist.h" "$OUT/include/"

# libbpf
step DEPS "libbpf $(src_version libbpf) -> libbpf.a"
cp -a "$SRC/libbpf" "$B/libbpf"
mkdir -p "$B/libbpf/obj"
(
	cd "$B/libbpf/src"
	make -j"$JOBS" BUILD_STATIC_ONLY=1 NO_PKG_CONFIG=1 CC="$CC" \
		OBJDIR="$B/libbpf/obj" CFLAGS="$CFLAGS_COMMON -Wall" \
		EXTRA_CFLAGS="-I$OUT/include -idirafter $UAPI"
	make install_headers BUILD_STATIC_ONLY=1 NO_PKG_CONFIG=1 \
		OBJDIR="$B/libbpf/obj" INCLUDEDIR="$OUT/include" DESTDIR=
) > "$B/libbpf.log" 2>&1 || { tail -40 "$B/libbpf.log" >&2; die "libbpf build failed (log: $B/libbpf.log)"; }
cp "$B/libbpf/obj/libbpf.a" "$OUT/lib/"
grep -q 'bpf_program__attach_netfilter' "$OUT/include/bpf/libbpf.h" ||
	die "libbpf $(src_version libbpf) lacks bpf_program__attach_netfilter (need >= 1.2)"

# Record what was used.
{
	echo "# generated by umh/deps/build.sh; package version (suite)"
	versions
	echo "# sources:"
	for p in "${PINS[@]}"; do
		set -- $p
		sed -n 's/^method: /'"$1"': /p; s/^sha256: /'"$1"': sha256 /p' \
			"$SRC/$1/.ebpfilter-source" 2>/dev/null || true
	done
	echo "# toolchain: $("$CC" --version 2>/dev/null | head -1), musl $(dpkg-query -W -f '${Version}' musl 2>/dev/null || echo '?')"
	echo "# uapi: linux-libc-dev $(dpkg-query -W -f '${Version}' linux-libc-dev 2>/dev/null || echo '?') + libbpf include/uapi/linux"
} > "$OUT/VERSIONS"
if [ -f "$here/VERSIONS" ] &&
	! diff -q <(grep -v '^#' "$here/VERSIONS") <(versions) >/dev/null; then
	log "WARNING: source versions differ from $here/VERSIONS:"
	diff <(grep -v '^#' "$here/VERSIONS") <(versions) >&2 || true
	[ "${EBPFILTER_DEPS_STRICT:-0}" = 1 ] && die "version mismatch (EBPFILTER_DEPS_STRICT=1)"
fi

rm -rf "$B"
echo "$key" > "$OUT/.stamp"
step DEPS "done in $(( $(date +%s) - t0 ))s: $OUT"
