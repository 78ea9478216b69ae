// Package rebootdrill is the reboot drill: the acceptance of L1 autostart by
// rehearsal. run.sh builds a minimal Debian 12 systemd guest (cached by a hash
// of build-rootfs.sh), puts the freshly built svc-ctl, a config and the test
// service into an ext4 image, boots it under qemu, and lets the guest drive
// itself through the real `svc-ctl install`, a kill, a reboot and a power-off
// (guest/). The verdict (verdict/) comes only from evidence read back out of
// the guest: the marker lines of its evidence serial port (marker/) and the
// svc-ctl database dumped from the image after power-off.
//
// The drill must never judge by configuration ("the unit file exists", "the
// unit is enabled"), never make the guest start the agent by any other path
// than the one under test (its unit orders After= the boot, never Wants= the
// agent), and never touch the host beyond its cache, its work directory and
// its own qemu processes. The negative scenario proves the drill can fail:
// with the agent started but not enabled it must see the defect after the
// reboot.
//
// The Go test here only wraps run.sh, gated by SVCCTL_REBOOT_DRILL=1: it takes
// both cores for minutes and must run on its own, not beside `go test ./...`.
package rebootdrill
