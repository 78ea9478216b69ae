# shellcheck shell=bash
# Helpers shared by run.sh and build-rootfs.sh. Sourced, never executed.

log() { printf '%s drill: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 2; }

# need_tools installs, with apt-get, the Debian packages that provide the
# given commands when any is missing ("cmd:package" pairs). CI runs on a fresh
# machine as root, so the drill brings its own tools.
need_tools() {
	local pair cmd pkg missing=()
	for pair in "$@"; do
		cmd=${pair%%:*} pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing host packages ${missing[*]}: run as root or install them first"
	log "installing host packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	retry_once apt-get update -qq
	retry_once apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# retry_once runs a command and, if it fails (a flaky package download), once
# more; then it fails with the command named.
retry_once() {
	"$@" && return 0
	log "failed, retrying once: $*"
	sleep 5
	"$@" && return 0
	die "failed twice: $* (check the network and the apt mirror, then rerun)"
}

# debian_mirror prints the URI of the Debian archive this machine's apt uses
# for bookworm main, read from sources.list and sources.list.d/*.{list,sources}
# (the only names apt reads) under APT_DIR (default /etc/apt).
debian_mirror() {
	local apt=${1:-/etc/apt}
	local f uri=""
	for f in "$apt"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && suites ~ /(^| )bookworm( |$)/ && comps ~ /(^| )main( |$)/ && enabled !~ /^no$/ && uris != "" && !found) {
					split(uris, u, " "); print u[1]; found = 1
				}
				types = suites = comps = uris = enabled = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^#/ { next }
			tolower($1) == "types:"      { $1 = ""; types = $0 }
			tolower($1) == "uris:"       { $1 = ""; sub(/^ +/, ""); uris = $0 }
			tolower($1) == "suites:"     { $1 = ""; suites = $0 }
			tolower($1) == "components:" { $1 = ""; comps = $0 }
			tolower($1) == "enabled:"    { enabled = tolower($2) }
			END { flush() }
		' "$f")
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ]; then
		for f in "$apt"/sources.list "$apt"/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			uri=$(awk '
				$1 != "deb" { next }
				{ i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } }
				$(i+1) == "bookworm" { for (j = i+2; j <= NF; j++) if ($j == "main") { print $i; exit } }
			' "$f")
			[ -n "$uri" ] && break
		done
	fi
	[ -n "$uri" ] || die "no 'deb ... bookworm main' entry in $apt/sources.list{,.d/*}: add the Debian mirror apt should use"
	printf '%s\n' "${uri%/}"
}
