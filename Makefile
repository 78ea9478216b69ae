.PHONY: test reboot-drill mutants

# The suite, saying first which gated tests run and which not, and why
# (internal/tools/testgates): then CGO_ENABLED=1 go test -race ./...
test:
	go run ./internal/tools/testgates

# The reboot drill (e2e/rebootdrill/run.sh): boots a Debian guest under qemu,
# installs the agent, reboots, judges from the guest's evidence. Needs root;
# takes both cores for minutes: run it on its own.
reboot-drill:
	e2e/rebootdrill/run.sh

# Each mutation of internal/tools/mutants/mutations.go applied alone (through
# go test -overlay: the tree is never written) must fail the tests it names.
# About 30 s on 2 cores with a warm build cache.
mutants:
	go run ./internal/tools/mutants
