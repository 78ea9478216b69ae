// Package testkit is the part of svc-ctl's test kit that imports nothing but
// the standard library, so the tests of every package can use it, the
// helpers testutil itself imports (fsutil, config) included: a fake clock
// for the Now seams (Clock), a package variable swapped for one test and
// restored (Replace), the mark of a test that changes what the whole process
// shares, which keeps it out of parallel (ProcessWide), and one session bus
// for the tests that talk D-Bus (DBus). Only tests import it.
package testkit
