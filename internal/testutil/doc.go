// Package testutil holds what svc-ctl's tests share: polling against a
// deadline (WaitFor) instead of sleeping and hoping, a free loopback address
// (FreeAddr), and a config with testsvc services written through the real
// loader (Service, Config). Only tests import it.
package testutil
