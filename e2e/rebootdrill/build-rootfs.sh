#!/usr/bin/env bash
# build-rootfs.sh OUT MIRROR — build the drill guest: a minimal Debian 12
# (bookworm) systemd root file system in OUT/rootfs, and its kernel and initrd
# as OUT/vmlinuz and OUT/initrd.img.
#
# run.sh caches OUT under a hash of this file (and the mirror), so any change
# here rebuilds the guest. Nothing of svc-ctl goes in here: run.sh adds the
# binaries, the config and the drill unit per run.
set -euo pipefail

out=${1:?usage: build-rootfs.sh OUT MIRROR}
mirror=${2:?usage: build-rootfs.sh OUT MIRROR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

# The kernel flavour that carries the virtio drivers; udev so that systemd sees
# /dev/vda as a device unit; initramfs-tools to build the initrd from the list
# below, not from the build host's hardware.
packages=systemd,systemd-sysv,udev,kmod,initramfs-tools,zstd,linux-image-cloud-amd64

modules='virtio_pci virtio_blk ext4'
# The hooks are shell snippets mmdebstrap runs with the root directory as $1:
# single quotes keep $1 for them.
# shellcheck disable=SC2016
hooks=(
	# Before any package: MODULES=list and the explicit module list, so the
	# kernel's postinst generates a small initrd, once, without inspecting the
	# build host. The list goes to modules.d (owned by no package) because
	# /etc/initramfs-tools/modules is a conffile that dpkg would refuse to
	# overwrite; it is written there too afterwards, for anyone who reruns
	# update-initramfs in the guest.
	--setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"'
	--setup-hook='echo MODULES=list >"$1/etc/initramfs-tools/conf.d/drill"'
	--setup-hook="printf '%s\\n' $modules >\"\$1/usr/share/initramfs-tools/modules.d/drill\""
	# the single disk; mmdebstrap keeps an fstab that exists
	--setup-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"'
	--customize-hook="printf '%s\\n' $modules >\"\$1/etc/initramfs-tools/modules\""
	--customize-hook='echo drill >"$1/etc/hostname"'
	# a persistent journal: the evidence of a failed boot survives it
	--customize-hook='mkdir -p "$1/var/log/journal"'
	# fail the build, not the boot, when the initrd cannot find the disk
	--customize-hook='chroot "$1" sh -c "lsinitramfs /boot/initrd.img-*" >"$1/root/initrd.list"'
)

rm -rf "$out/rootfs"
mkdir -p "$out"
log "building the guest root file system from $mirror (bookworm)"
mmdebstrap --mode=root --variant=minbase --components=main --include="$packages" \
	--aptopt='Acquire::Retries "3"' "${hooks[@]}" \
	bookworm "$out/rootfs" "deb $mirror bookworm main" >"$out/mmdebstrap.log" 2>&1 || {
	tail -n 30 "$out/mmdebstrap.log" >&2
	exit 1
}

# each listed module is in the initrd or built into the kernel (ext4 is, in
# the cloud flavour)
for m in $modules; do
	grep -q "/$m\.ko" "$out/rootfs/root/initrd.list" "$out"/rootfs/usr/lib/modules/*/modules.builtin ||
		die "the guest initrd lacks $m and the kernel does not build it in: see $out/mmdebstrap.log"
done
rm -f "$out/rootfs/root/initrd.list"

kernels=("$out"/rootfs/boot/vmlinuz-*)
initrds=("$out"/rootfs/boot/initrd.img-*)
if [ ${#kernels[@]} -ne 1 ] || [ ! -f "${kernels[0]}" ]; then
	die "expected one kernel in $out/rootfs/boot, found: ${kernels[*]}"
fi
if [ ${#initrds[@]} -ne 1 ] || [ ! -f "${initrds[0]}" ]; then
	die "expected one initrd in $out/rootfs/boot, found: ${initrds[*]}"
fi
cp "${kernels[0]}" "$out/vmlinuz"
cp "${initrds[0]}" "$out/initrd.img"
log "guest built: $(du -sh "$out/rootfs" | cut -f1) rootfs, kernel $(basename "${kernels[0]}")"
