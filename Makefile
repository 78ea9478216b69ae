.PHONY: reboot-drill

# The reboot drill (e2e/rebootdrill/run.sh): boots a Debian guest under qemu,
# installs the agent, reboots, judges from the guest's evidence. Needs root;
# takes both cores for minutes: run it on its own.
reboot-drill:
	e2e/rebootdrill/run.sh
