#!/usr/bin/env bash
# run.sh — the reboot drill: the rehearsal that counts for L1 autostart.
#
# It boots a real Debian 12 systemd guest under qemu (TCG), lets the guest run
# the real `svc-ctl install` on its first boot, reboots it, and judges from the
# evidence read back out of the guest whether the agent came back by itself
# after the reboot and did its job. Scenarios (all by default):
#
#   main      install; the agent starts the service; verify passes; the service
#             is killed and the agent restores it; reboot; with no one touching
#             anything the agent is back since the boot, the service healthy,
#             verify passes, run_trace has cycles of both boots
#   negative  the same drill with the agent's unit started but not enabled: it
#             must FAIL after the reboot (the drill sees "works until the next
#             reboot"); this script asserts that it does
#   backstop  install and install --backstop --every 1m; the agent is stopped
#             and disabled on purpose, the service killed: the timer's
#             `svc-ctl start --all` alone brings it back, before and after a
#             reboot
#
# Usage: run.sh [--scenario main,negative,backstop] [--keep]
# Env:   DRILL_CACHE (default /var/cache/svc-ctl-drill) the built guest, by hash
#        DRILL_OUT   (default <repo>/dist/rebootdrill)   evidence per scenario
#        DRILL_TIMEOUT (default 540) seconds one scenario's qemu may run
# Needs: root, x86_64 Linux with apt (installs mmdebstrap, qemu-system-x86,
#        e2fsprogs when missing), Go. Takes both cores: run it on its own.
#
# Nothing outside the guest is touched: no loop mounts, no host services; the
# image is made with mkfs.ext4 -d and edited with debugfs, the guest has no
# network. Exit status: 0 every scenario as expected, 1 a scenario failed,
# 2 the drill could not run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; }

scenarios=(main negative backstop)
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--scenario) IFS=, read -r -a scenarios <<<"${2:?--scenario needs main, negative and/or backstop}"; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage; die "unknown argument $1" ;;
	esac
done
for s in "${scenarios[@]}"; do
	case $s in main | negative | backstop) ;; *) die "unknown scenario $s: use main, negative or backstop" ;; esac
done

cache_root=${DRILL_CACHE:-/var/cache/svc-ctl-drill}
out_root=${DRILL_OUT:-$repo/dist/rebootdrill}
timeout=${DRILL_TIMEOUT:-540}

# What the guest runs; the config and the drill unit below use the same names.
service=drillsvc
port=18080
agent_unit=svc-ctl.service          # install: ServiceName
backstop_timer=svc-ctl-backstop.timer # install: BackstopName
every=1m                              # the shortest period install --backstop accepts

[ "$(uname -s)/$(uname -m)" = Linux/x86_64 ] || die "the drill needs an x86_64 Linux host, not $(uname -s)/$(uname -m)"
[ "$(id -u)" -eq 0 ] || die "the drill builds a root file system: run it as root"
command -v go >/dev/null || die "go is not on PATH: install Go (see go.mod) first"
need_tools mmdebstrap:mmdebstrap qemu-system-x86_64:qemu-system-x86 mkfs.ext4:e2fsprogs debugfs:e2fsprogs flock:util-linux

work=$(mktemp -d /var/tmp/svc-ctl-drill.XXXXXX)
qemu_pid=
cleanup() {
	if [ -n "$qemu_pid" ]; then kill -KILL "$qemu_pid" 2>/dev/null || true; fi
	if [ "$keep" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM # through the EXIT trap: qemu is killed, the work dir removed

# guest_cache builds the guest once per version of build-rootfs.sh (and
# mirror) into $cache_root/<hash> and prints that directory. A failed build is
# retried once (a flaky download), then the drill stops.
guest_cache() {
	local mirror key dir
	mirror=$(debian_mirror /etc/apt)
	key=$({ cat "$here/build-rootfs.sh"; echo "$mirror"; } | sha256sum | cut -c1-16)
	dir=$cache_root/$key
	mkdir -p "$cache_root"
	chmod 0700 "$cache_root"
	exec 9>"$cache_root/.lock"
	flock 9 # one builder at a time; a second drill waits and reuses
	if [ -f "$dir/complete" ]; then
		log "using the cached guest $dir"
	else
		rm -rf "$dir.tmp"
		if ! "$here/build-rootfs.sh" "$dir.tmp" "$mirror"; then
			log "building the guest failed; retrying once"
			rm -rf "$dir.tmp"
			"$here/build-rootfs.sh" "$dir.tmp" "$mirror" ||
				die "building the guest failed twice (log: $dir.tmp/mmdebstrap.log): check $mirror is reachable"
		fi
		touch "$dir.tmp/complete"
		mv "$dir.tmp" "$dir"
	fi
	# only the current guest is kept: older hashes are dead weight
	find "$cache_root" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended \
		-regex '.*/[0-9a-f]{16}(\.tmp)?' ! -path "$dir" -exec rm -rf {} +
	exec 9>&-
	printf '%s\n' "$dir"
}

# build_binaries: svc-ctl, the test service and the guest driver for the
# guest (static), the verdict for the host.
build_binaries() {
	local bin=$1 v
	v=drill-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo dev)
	log "building svc-ctl ($v), testsvc and the drill programs"
	(
		cd "$repo"
		export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -buildvcs=false"
		GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-X main.version=$v" -o "$bin/svc-ctl" ./cmd/svc-ctl
		GOOS=linux GOARCH=amd64 go build -trimpath -o "$bin/testsvc" ./internal/testsvc/cmd/testsvc
		GOOS=linux GOARCH=amd64 go build -trimpath -o "$bin/drill-guest" ./e2e/rebootdrill/guest
		go build -o "$bin/drill-verdict" ./e2e/rebootdrill/verdict
	)
}

# write_config: the svc-ctl config the guest installs, with the short
# intervals of a drill. It is checked on the host first: a config error is
# found here in a second, not after a boot.
write_config() {
	cat >"$1" <<EOF
# svc-ctl config of the reboot drill (e2e/rebootdrill/run.sh): short intervals.
[agent]
log_level = "debug"
heartbeat = "5s"

[[service]]
name          = "$service"
# Through a wrapper script that stays the server's parent, as real services
# are started: the instance is the tree of both.
command       = ["/usr/local/bin/testsvc-wrapper", "--addr", "127.0.0.1:$port"]
interval      = "2s"
start_timeout = "5s"

  [service.health]
  http    = "http://127.0.0.1:$port/health"
  confirm = "0s"
EOF
	chmod 0644 "$1"
	"$bin/svc-ctl" config check --config "$1" >/dev/null || die "the drill's config $1 does not load (see above)"
}

# write_wrapper: the service's wrapper script (the service under test; svc-ctl
# itself never runs a shell). It does not exec: the tree is sh + testsvc.
write_wrapper() {
	cat >"$1" <<'WRAPPER'
#!/bin/sh
# reboot drill: a wrapper that stays the server's parent (e2e/rebootdrill/run.sh)
/usr/local/bin/testsvc "$@"
echo "testsvc-wrapper: testsvc ended with $?"
WRAPPER
	chmod 0755 "$1"
}

# write_unit: the oneshot that drives the guest on every boot. After= only:
# never Wants=/Requires= the agent's unit, which would start the agent by
# itself and hide exactly the defect the drill looks for.
write_unit() {
	local scenario=$2
	cat >"$1" <<EOF
# Test harness only (e2e/rebootdrill): drives the reboot drill on every boot.
[Unit]
Description=svc-ctl reboot drill ($scenario)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/drill-guest --scenario $scenario --service $service --port $port --agent-unit $agent_unit --backstop-timer $backstop_timer --every $every
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=15min

[Install]
WantedBy=multi-user.target
EOF
	chmod 0644 "$1"
}

# debugfs_run runs debugfs commands on an image and fails on any error it
# reports (debugfs itself always exits 0).
debugfs_run() {
	local img=$1 cmds=$2 err=$work/debugfs.err
	debugfs -w -f "$cmds" "$img" >/dev/null 2>"$err"
	if grep -v '^debugfs [0-9]' "$err" >&2; then
		die "editing $img with debugfs failed (commands: $cmds)"
	fi
}

# make_image: a fresh ext4 image of the cached root file system (mkfs.ext4
# -d), plus the binaries, the config and the drill unit of this scenario.
make_image() {
	local img=$1 scenario=$2 rootfs=$guest/rootfs cmds=$work/debugfs.cmds
	write_unit "$work/drill.service" "$scenario"
	rm -f "$img"
	truncate -s 2G "$img"
	mkfs.ext4 -q -F -L drill -d "$rootfs" "$img"
	{
		[ -d "$rootfs/usr/local/sbin" ] || echo "mkdir /usr/local/sbin"
		[ -d "$rootfs/etc/systemd/system/multi-user.target.wants" ] || echo "mkdir /etc/systemd/system/multi-user.target.wants"
		echo "write $bin/svc-ctl /usr/local/bin/svc-ctl"
		echo "write $bin/testsvc /usr/local/bin/testsvc"
		echo "write $work/testsvc-wrapper /usr/local/bin/testsvc-wrapper"
		echo "write $bin/drill-guest /usr/local/sbin/drill-guest"
		echo "mkdir /etc/svc-ctl"
		echo "write $work/svc-ctl.toml /etc/svc-ctl/svc-ctl.toml"
		echo "write $work/drill.service /etc/systemd/system/drill.service"
		echo "symlink /etc/systemd/system/multi-user.target.wants/drill.service /etc/systemd/system/drill.service"
		echo "mkdir /var/lib/drill"
	} >"$cmds"
	debugfs_run "$img" "$cmds"
}

# boot runs qemu until the guest powers itself off, or kills it by its PID at
# the deadline. It prints the guest's markers as they come. Sets qemu_rc and
# timed_out.
boot() {
	local img=$1 ev=$2 start=$SECONDS seen=0 n
	# No -no-reboot: qemu keeps -kernel/-initrd/-append across the guest's
	# reboot. tb-size=256 keeps qemu's memory bounded. No network device.
	qemu-system-x86_64 -machine pc -cpu qemu64 -smp 2 -m 1024 -accel tcg,thread=multi,tb-size=256 \
		-nodefaults -no-user-config -display none \
		-kernel "$guest/vmlinuz" -initrd "$guest/initrd.img" \
		-append "console=ttyS0 root=/dev/vda rw panic=-1 systemd.firstboot=off fsck.mode=skip" \
		-drive "file=$img,format=raw,if=virtio" -device virtio-rng-pci \
		-serial "file:$ev/console.log" -serial "file:$ev/drill.log" \
		>"$ev/qemu.log" 2>&1 &
	qemu_pid=$!
	timed_out=0
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ -f "$ev/drill.log" ]; then
			n=$(grep -c '^DRILL ' "$ev/drill.log" || true)
			if [ "$n" -gt "$seen" ]; then
				grep '^DRILL ' "$ev/drill.log" | sed -n "$((seen + 1)),${n}p" | cut -d' ' -f2-4 | sed 's/^/    guest: /' >&2
				seen=$n
			fi
		fi
		if [ $((SECONDS - start)) -ge "$timeout" ]; then
			log "the guest did not power off within ${timeout}s: killing qemu (pid $qemu_pid)"
			kill -TERM "$qemu_pid" 2>/dev/null || true
			sleep 2
			kill -KILL "$qemu_pid" 2>/dev/null || true
			timed_out=1
			break
		fi
		sleep 1
	done
	qemu_rc=0
	wait "$qemu_pid" || qemu_rc=$?
	qemu_pid=
	log "qemu exited $qemu_rc after $((SECONDS - start))s"
}

# read_back copies the evidence out of the powered-off image with debugfs.
read_back() {
	local img=$1 ev=$2 f
	for f in svc-ctl.db svc-ctl.db-wal svc-ctl.db-shm watchdog.last.json agent.log; do
		debugfs -R "dump -p /var/lib/svc-ctl/$f $ev/$f" "$img" >/dev/null 2>&1 || true
	done
	debugfs -R "rdump /var/log/journal $ev" "$img" >/dev/null 2>&1 || true
	debugfs -R "dump -p /var/lib/drill/boot $ev/boot-counter" "$img" >/dev/null 2>&1 || true
}

# drill runs one scenario end to end and judges it.
drill() {
	local scenario=$1 ev=$out_root/$1 img=$work/$1.img args
	log "scenario $scenario: assembling the image"
	rm -rf "$ev"
	mkdir -p "$ev"
	make_image "$img" "$scenario"
	log "scenario $scenario: booting (deadline ${timeout}s)"
	boot "$img" "$ev"
	read_back "$img" "$ev"
	rm -f "$img"
	args=(--scenario "$scenario" --service "$service" --markers "$ev/drill.log" --db "$ev/svc-ctl.db" --qemu-exit "$qemu_rc")
	[ "$timed_out" = 1 ] && args+=(--timed-out)
	if "$bin/drill-verdict" "${args[@]}" >"$ev/verdict.txt" 2>&1; then
		sed 's/^/  /' "$ev/verdict.txt" >&2
		return 0
	fi
	sed 's/^/  /' "$ev/verdict.txt" >&2
	log "scenario $scenario failed; the end of the guest's console ($ev/console.log):"
	tail -n 25 "$ev/console.log" | sed 's/^/  | /' >&2 || true
	return 1
}

started=$SECONDS
guest=$(guest_cache)
bin=$work/bin
mkdir -p "$bin"
build_binaries "$bin"
write_wrapper "$work/testsvc-wrapper"
write_config "$work/svc-ctl.toml"

failed=()
for s in "${scenarios[@]}"; do
	drill "$s" || failed+=("$s")
done
log "evidence in $out_root; whole drill $((SECONDS - started))s"
for s in "${scenarios[@]}"; do
	case " ${failed[*]} " in
	*" $s "*) echo "FAIL reboot drill: $s" ;;
	*) echo "PASS reboot drill: $s" ;;
	esac
done
[ ${#failed[@]} -eq 0 ]
