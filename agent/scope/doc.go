// Package scope moves an agent started by hand into a transient systemd
// scope with Delegate=yes (StartTransientUnit on the manager's bus), so it
// owns its services' trees with cgroups as under the installed unit.
//
// What this package must never do: move anything but the agent itself (a
// child moved after its fork could fork and escape first), or wait for the
// manager longer than scopeWait.
package scope
