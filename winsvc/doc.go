// Package winsvc holds what svc-ctl needs from Windows beyond what
// kardianos/service does: the service's recovery actions and preshutdown
// timeout, a service control handler whose stop waits for the agent's drain,
// and the Task Scheduler XML of the backstop task.
//
// Everything that only computes (Settings, CommandLine, TaskXML) is plain Go
// and compiles and is tested on every OS; the calls into the service control
// manager live in *_windows.go files behind the small scm interface, with
// stubs elsewhere that return ErrUnsupported.
//
// It must never run a shell, never store or log secrets (a service password is
// not something svc-ctl handles at all), and never change a service other than
// the one it is named.
package winsvc
