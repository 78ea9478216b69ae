// Package reloadplan says what a reload changes: it compares the config in
// force with the file's new one, key by key, and returns the plan (services
// and jobs added, removed, changed, whose instance is replaced; what needs an
// agent restart) and the config to put in force. The agent acts on the plan.
// It also says which files a reload refuses as a whole (refuse.go): one
// caught empty, one that moves the state dir, one whose include lost its
// files.
//
// What this package must never do: act (start, stop, replace) on anything,
// or let a key that only a restart applies take effect while running: such a
// key keeps its old value in the config put in force, and is listed.
package reloadplan
