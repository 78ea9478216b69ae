#!/usr/bin/env bash
# run.sh — svc-ctl's Windows build under Wine (docs/windows.md).
#
# Self-contained: installs wine64 and mingw-w64 from Debian's packages when
# they are missing, builds the ProcessPrng DLL from processprng.c (Wine 8 has
# no bcryptprimitives.dll, which every Go >= 1.22 Windows program needs at
# start), prepares a throwaway prefix, then runs the harness (harness/):
#   units  every package's Windows test binary, from its package directory
#   e2e    svc-ctl.exe end to end: CLI verbs, the agent (crash -> fast path,
#          hang -> replaced), jobs, install as a Windows service, a prefix
#          reboot, verify, uninstall
# and prints a PASS / FAIL / TOLERATED table. Only the Wine gaps named in
# harness/gaps.go are tolerated.
#
# Usage: run.sh [--units-only | --e2e-only] [--only PKG,...] [--keep]
# Env:   WIN_OUT  (default <repo>/dist/windows) logs and the kept prefix
#        WIN_TIMEOUT (default 4m) per test binary
#        WIN_JOBS (default 2) test binaries run at once
# Needs: x86_64 Linux with apt (root to install packages), Go.
# Exit status: 0 no FAIL, 1 a FAIL, 2 the harness could not run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "run.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; }

harness_args=()
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--units-only) harness_args+=(-e2e=false); shift ;;
	--e2e-only) harness_args+=(-units=false); shift ;;
	--only) harness_args+=(-only "${2:?--only needs packages}"); shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage; die "unknown argument $1" ;;
	esac
done

# 1. Packages: Debian's wine64 (8.0 on bookworm) and the mingw-w64 C compiler.
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
need=()
[ -x "$wine" ] || need+=(wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64-win32)
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing ${need[*]}: install them (apt-get install ${need[*]}) or run as root"
	echo "== installing ${need[*]}"
	for try in 1 2 3 4 5 6; do # apt takes a lock others may hold: wait, then retry
		if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; then
			break
		fi
		[ "$try" = 6 ] && die "apt-get install ${need[*]} failed"
		apt-get update -qq || true
		sleep 10
	done
	wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
fi
server=$(command -v wineserver || true)
for s in "$server" /usr/lib/wine/wineserver64 /usr/lib/wine/wineserver; do
	if [ -n "$s" ] && [ -x "$s" ]; then server=$s; break; fi
done
[ -x "$server" ] || die "no wineserver next to $wine"
echo "== $("$wine" --version 2>/dev/null || echo wine), $(go version)"

# 2. A throwaway prefix with the ProcessPrng DLL in system32.
out=${WIN_OUT:-$repo/dist/windows}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/svcctl-wine.XXXXXX")
prefix=$work/prefix
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
	# End this prefix's processes only (never another Wine on the host).
	"$server" -k 2>/dev/null || true
	"$server" -w 2>/dev/null || true
	rm -rf "$out/logs" && cp -r "$work/logs" "$out/logs" 2>/dev/null || true
	if [ "$keep" = 1 ]; then
		echo "== kept $work (prefix, binaries, logs)"
	else
		rm -rf "$work" || true
	fi
}
trap cleanup EXIT
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bcryptprimitives.dll" "$here/processprng.c" "$here/processprng.def"
t0=$(date +%s)
timeout 300 "$wine" wineboot -i >/dev/null 2>&1 || die "wineboot -i failed or hung"
"$server" -w
cp "$work/bcryptprimitives.dll" "$prefix/drive_c/windows/system32/"
echo "== prefix ready in $(( $(date +%s) - t0 ))s: $prefix"

# 3. The harness: builds the Windows binaries, runs them, prints the table.
cd "$repo"
go build -o "$work/harness" ./e2e/windows/harness
set +e
"$work/harness" -root "$repo" -prefix "$prefix" -wine "$wine" -wineserver "$server" \
	-work "$work" -timeout "${WIN_TIMEOUT:-4m}" -jobs "${WIN_JOBS:-2}" "${harness_args[@]}"
rc=$?
set -e
echo "== logs: $out/logs"
exit $rc
