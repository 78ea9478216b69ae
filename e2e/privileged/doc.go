// Package privileged holds the end-to-end tests of what a root svc-ctl
// refuses on a machine where another, unprivileged user can write files
// (docs/security.md). Each attack is reproduced as the attacker would
// (a throwaway user created and removed by the test writes what it can
// write) and the test asserts that root refuses, naming the path and the fix,
// and that the attack's effect did not happen.
//
// The tests run only as root with SVCCTL_E2E_PRIVILEGED=1 (.ci/run sets it:
// CI runs as root); elsewhere they skip with the reason. They create a
// system user named svcctl-e2e-<random> and remove it (and every file of
// theirs) when done, and they only use temporary directories, loopback
// addresses and processes they started.
package privileged
