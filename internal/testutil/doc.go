// Package testutil holds what svc-ctl's tests share: polling against a
// deadline (WaitFor) instead of sleeping and hoping, a free loopback address
// (FreeAddr), a config with testsvc services written through the real
// loader (Service, Config), helper programs built once or found prebuilt
// where there is no Go toolchain (GoBuild: under Wine), and the processes
// tests look at and kill from outside on every OS (Running, KillPID). Only
// tests and test helpers import it.
package testutil
